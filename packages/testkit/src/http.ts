/**
 * The JSON body of a response, typed loosely for assertions (Node's `Response.json()`
 * is `unknown`; tests check the shape with `expect`).
 */
// biome-ignore lint/suspicious/noExplicitAny: assertions inspect arbitrary JSON bodies
export async function json(res: Response): Promise<any> {
  return res.json();
}
