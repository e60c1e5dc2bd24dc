import type { Clock } from '../../../shared/clock.ts';
import type { Logger } from '../../../shared/logger.ts';
import type { Metrics } from '../../../shared/metrics.ts';
import type { Database } from '../../../storage/database.ts';
import { MqttBridge } from './mqtt/bridge.ts';
import { ObservationPruning, TelemetryRetention } from './retention.ts';

export interface TelemetrySettings {
  observationRetentionDays: number;
  mqttUrl?: string | undefined;
  mqttTopicPrefix: string;
  mqttClientId: string;
}

/**
 * What a process serving the assets subgraph runs beside it for telemetry: the hourly pruning of
 * readings (and next month's partitions), and with `mqttUrl` the MQTT bridge. Resolves nothing:
 * the bridge connects, and keeps connecting, on its own. Answers the function that stops both.
 */
export function startTelemetryJobs(options: {
  settings: TelemetrySettings;
  database: Pick<Database, 'db' | 'pool' | 'engine'>;
  clock: Clock;
  log: Logger;
  metrics: Metrics;
}): () => Promise<void> {
  const { settings, database, clock, log, metrics } = options;
  const pruning = new ObservationPruning({
    db: database.db,
    clock,
    log,
    defaultDays: settings.observationRetentionDays,
  });
  // Readings from the broker, written as this process's own.
  const bridge = settings.mqttUrl
    ? new MqttBridge({
        url: settings.mqttUrl,
        prefix: settings.mqttTopicPrefix,
        clientId: settings.mqttClientId,
        database,
        retention: new TelemetryRetention(database.db, settings.observationRetentionDays, clock),
        clock,
        log: log.child({ component: 'mqtt' }),
        metrics,
      })
    : null;
  void bridge?.start();
  return async () => {
    await Promise.all([pruning.close(), bridge?.close()]);
  };
}
