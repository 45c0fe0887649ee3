import type { ServiceApp } from "@app/core";
import { contentfulStatus } from "../../kit/status.ts";
import { xrpcErrors } from "../errors.ts";
import { isNsid } from "../identifiers.ts";
import { methodType } from "../lexicons.ts";

/**
 * Every other `/xrpc/<nsid>`, as the XRPC server's catch-all answers: an invalid NSID is 400
 * "invalid xrpc path", a method the lexicons define called with the wrong HTTP method 400
 * "Incorrect HTTP method", and anything else 501 `MethodNotImplemented`. Mounted after every
 * method this PDS serves.
 */
export function registerUnknownMethod(app: ServiceApp): void {
  app.all("/xrpc/:nsid", (c) => {
    const refuse = (status: number, code: string, message?: string) => {
      const rendered = xrpcErrors({ status, code, message });
      return c.json(rendered.body as object, contentfulStatus(rendered.status));
    };
    const nsid = c.req.param("nsid");
    if (!isNsid(nsid)) return refuse(400, "InvalidRequest", "invalid xrpc path");
    const type = methodType(nsid);
    const expected = type === "procedure" ? "POST" : type === "query" ? "GET" : undefined;
    if (expected && c.req.method !== expected && !(expected === "GET" && c.req.method === "HEAD")) {
      return refuse(400, "InvalidRequest", `Incorrect HTTP method (${c.req.method}) expected ${expected}`);
    }
    return refuse(501, "MethodNotImplemented");
  });
}
