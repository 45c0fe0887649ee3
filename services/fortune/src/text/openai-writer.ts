import type { FortuneWriter } from "./generator.ts";

export type OpenAiWriterOptions = { baseUrl: string; apiKey?: string; model: string; timeoutMs?: number };

type ChatCompletion = { choices?: { message?: { content?: string } }[] };

/** Fortunes from an OpenAI-compatible `POST /chat/completions` endpoint. */
export class OpenAiCompatibleWriter implements FortuneWriter {
  constructor(private readonly options: OpenAiWriterOptions) {}

  async fortune(topic?: string): Promise<string> {
    return this.complete(topic ? `Write one short fortune about ${topic}.` : "Write one short fortune.", 60);
  }

  async reply(prompt: string, maxTokens: number): Promise<string[]> {
    const text = await this.complete(prompt, maxTokens);
    const words = text.split(/\s+/).filter(Boolean).slice(0, maxTokens);
    return words.map((word, index) => (index < words.length - 1 ? `${word} ` : word));
  }

  private async complete(prompt: string, maxTokens: number): Promise<string> {
    const response = await fetch(`${this.options.baseUrl.replace(/\/$/, "")}/chat/completions`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        ...(this.options.apiKey ? { authorization: `Bearer ${this.options.apiKey}` } : {}),
      },
      body: JSON.stringify({
        model: this.options.model,
        max_tokens: maxTokens,
        messages: [
          { role: "system", content: "You are a fortune teller. Answer in one or two short sentences." },
          { role: "user", content: prompt },
        ],
      }),
      signal: AbortSignal.timeout(this.options.timeoutMs ?? 15_000),
      redirect: "error",
    });
    if (!response.ok) throw new Error(`Text endpoint answered ${response.status}`);
    const body = (await response.json()) as ChatCompletion;
    const content = body.choices?.[0]?.message?.content?.trim();
    if (!content) throw new Error("Text endpoint returned no content");
    return content;
  }
}
