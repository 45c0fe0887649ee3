import { z } from "@app/core";
import { decodeCursor } from "../domain/cursor.ts";
import { textField } from "./text-field.ts";

/** The bounds of a list's page size: at least `min`, at most `max`, `default` when the query names none. */
export type PageBounds = { readonly min: number; readonly max: number; readonly default: number };

/** The `limit` query parameter of a paged list: a whole number within the page's bounds. */
export function pageLimitParam(page: PageBounds) {
  return z
    .string()
    .regex(/^\d{1,6}$/, "must be a whole number")
    .transform(Number)
    .pipe(z.number().int().min(page.min).max(page.max))
    .optional()
    .openapi({ type: "integer", minimum: page.min, maximum: page.max, default: page.default });
}

/**
 * The `cursor` query parameter of a list paged by (time, id): decoded here, so that a cursor this
 * service never issued is a fault of the query string (400), not of the list.
 */
export function pageCursorParam() {
  return textField()
    .min(1)
    .max(512)
    .transform((text, context) => {
      const position = decodeCursor(text);
      if (!position) context.addIssue({ code: "custom", message: "is not a cursor this service issued" });
      return position ?? z.NEVER;
    })
    .optional()
    .openapi({ type: "string", description: "The `nextCursor` of the previous page" });
}
