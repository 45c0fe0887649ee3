import { z } from "@app/core";
import { isStorableText, UNSTORABLE_TEXT } from "../domain/text.ts";

/**
 * The string every request text field and path or query parameter uses: text PostgreSQL can
 * store (no NUL, no lone surrogate), refused as 400 VALIDATION_FAILED otherwise. Chain `.min`,
 * `.max` and the rest after it.
 */
export const textField = () => z.string().refine(isStorableText, UNSTORABLE_TEXT);
