export {
  type CliCommand,
  type CliContext,
  type CliIo,
  type CliOptions,
  CliUsageError,
  type CommandLineTool,
  commandLineTool,
  requiredOption,
} from "./cli.ts";
export type {
  BaseServiceConfig,
  BuiltService,
  ServiceContext,
  ServiceDefinition,
} from "./definition.ts";
export type { DemoContext, DemoSeeder } from "./demo.ts";
export { runOperatorCli } from "./operator-cli.ts";
export { baseSettings, toBaseConfig } from "./settings.ts";
export { migrateService, runStandalone, type StartedService, startService } from "./start.ts";
