/** Public entry point of @clickstream/status-server. */

export { startStatusServer, handle, listen } from './status-server';
export type {
  MetricsSource,
  HealthCheck,
  StatusServerOptions,
  StatusServer,
} from './status-server';
