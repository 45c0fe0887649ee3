import type { z } from "@app/core";

/**
 * The JSON body of a response, typed loosely for assertions (Node's `Response.json()`
 * is `unknown`; tests check the shape with `expect`).
 */
// biome-ignore lint/suspicious/noExplicitAny: assertions inspect arbitrary JSON bodies
export async function json(res: Response): Promise<any> {
  return res.json();
}

/**
 * The JSON body of a response read through the schema the route declares for it (its exported
 * response schema), so the test is typed by the contract and fails when the body breaks it.
 */
export async function jsonOf<Schema extends z.ZodType>(
  res: Response,
  schema: Schema,
): Promise<z.infer<Schema>> {
  const body: unknown = await res.json();
  const parsed = schema.safeParse(body);
  if (!parsed.success) {
    throw new Error(
      `The ${res.status} response does not match its declared schema: ${JSON.stringify(parsed.error.issues)}\n${JSON.stringify(body)}`,
    );
  }
  return parsed.data;
}
