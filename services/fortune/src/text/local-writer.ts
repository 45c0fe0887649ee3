import { randomInt } from "node:crypto";
import type { FortuneWriter } from "./generator.ts";

const OPENINGS = [
  "A quiet door opens",
  "The stars lean your way",
  "An old friend returns",
  "A small risk pays well",
  "Patience turns to gold",
  "A letter brings news",
  "Your next idea takes root",
  "A detour becomes the road",
];
const TURNS = [
  "before the new moon",
  "when you least expect it",
  "this week",
  "after a long wait",
  "by morning",
];
const ADVICE = [
  "say yes to the first invitation.",
  "write down what you notice.",
  "keep one promise you almost forgot.",
  "trust the slower path.",
  "share what you know.",
];

const TOPIC_HINTS: Record<string, string> = {
  love: "in matters of the heart",
  career: "in your work",
  health: "for your body and rest",
  wealth: "for your savings",
};

const pick = <T>(list: readonly T[]): T => list[randomInt(list.length)] as T;

/** Fortunes written locally, no network: short sentences composed from fixed parts. */
export class LocalFortuneWriter implements FortuneWriter {
  async fortune(topic?: string): Promise<string> {
    const hint = topic ? ` ${TOPIC_HINTS[topic] ?? `about ${topic}`}` : "";
    return `${pick(OPENINGS)}${hint} ${pick(TURNS)}; ${pick(ADVICE)}`;
  }

  async reply(prompt: string, maxTokens: number): Promise<string[]> {
    const subject = prompt.trim().split(/\s+/).slice(0, 6).join(" ");
    const text = `You asked: "${subject}". ${await this.fortune()} ${await this.fortune()}`;
    const words = text.split(" ");
    return words.slice(0, maxTokens).map((word, index) => (index < words.length - 1 ? `${word} ` : word));
  }
}
