import { createRoute, jsonResponse, type ServiceApp, z } from "@app/core";
import type { SandboxContext } from "../context.ts";
import { SandboxError } from "../errors.ts";
import { mountedOperations } from "../kit/operations.ts";

const TAGS = ["Sandbox controls"];

const NewFault = z
  .object({
    operation: z.string().min(1).max(100).openapi({ example: "youtube.videos.upload" }),
    kind: z.enum(["error", "timeout", "reset"]).default("error"),
    count: z.number().int().min(1).max(1000).default(1),
    status: z.number().int().min(400).max(599).default(503),
    error: z.string().min(1).max(100).optional().openapi({
      description: "The platform's code: quotaExceeded, spam_risk_too_many_posts, RateLimitExceeded…",
    }),
    message: z.string().max(500).optional(),
    retryAfterSeconds: z.number().int().min(0).max(86_400).optional(),
    holdMs: z.number().int().min(0).max(120_000).default(30_000),
  })
  .openapi("NewFault");

/** `POST|GET|DELETE /_sandbox/faults`: make the next N calls of an operation fail. */
export function registerSandboxFaults(app: ServiceApp, ctx: SandboxContext): void {
  app.openapi(
    createRoute({
      method: "post",
      path: "/_sandbox/faults",
      operationId: "sandbox_fault_create",
      tags: TAGS,
      summary:
        "Make the next `count` calls of an operation fail: an error status, a timeout or a connection reset",
      request: { body: { required: true, content: { "application/json": { schema: NewFault } } } },
      responses: {
        201: jsonResponse(z.object({ fault: z.record(z.string(), z.unknown()) }), "The fault, waiting"),
      },
    }),
    (c) => {
      const spec = c.req.valid("json");
      if (!mountedOperations.get(app)?.has(spec.operation)) {
        throw new SandboxError(
          "UNKNOWN_OPERATION",
          `There is no operation ${spec.operation}; see GET /_sandbox/operations.`,
        );
      }
      return c.json({ fault: ctx.kit.faults.add(spec) }, 201);
    },
  );
  app.openapi(
    createRoute({
      method: "get",
      path: "/_sandbox/faults",
      operationId: "sandbox_faults",
      tags: TAGS,
      summary: "The faults still waiting",
      responses: {
        200: jsonResponse(z.object({ faults: z.array(z.record(z.string(), z.unknown())) }), "Faults"),
      },
    }),
    (c) => c.json({ faults: ctx.kit.faults.list() }, 200),
  );
  app.openapi(
    createRoute({
      method: "delete",
      path: "/_sandbox/faults",
      operationId: "sandbox_faults_clear",
      tags: TAGS,
      summary: "Drop every waiting fault",
      responses: { 200: jsonResponse(z.object({ cleared: z.boolean() }), "Dropped") },
    }),
    (c) => {
      ctx.kit.faults.clear();
      return c.json({ cleared: true }, 200);
    },
  );
}
