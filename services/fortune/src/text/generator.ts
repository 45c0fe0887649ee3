/** Writes fortune text: a local generator by default, an OpenAI-compatible endpoint when configured. */
export interface FortuneWriter {
  /** One short fortune, optionally about a topic. */
  fortune(topic?: string): Promise<string>;
  /** A reply to a prompt, as a list of tokens (words with their trailing space). */
  reply(prompt: string, maxTokens: number): Promise<string[]>;
}
