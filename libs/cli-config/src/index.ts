/** Public entry point of @clickstream/cli-config: one parser for every app's flags and environment. */
export {
  ConfigError,
  DEFAULT_MESSAGES,
  SEE_HELP_MESSAGES,
  parseOptions,
  usage,
  type InvalidValue,
  type Messages,
  type OptionSpec,
  type OptionTable,
  type Origin,
  type ParseSettings,
  type Parsed,
} from './parse';
export {
  LOG_LEVELS,
  logLevel,
  intIn,
  numberIn,
  finiteNumber,
  hostPortList,
  topicName,
  identifier,
  existingDirectory,
  type LogLevel,
} from './fields';
export { configOrExit, type LoadedConfig, type StartOptions } from './start';
