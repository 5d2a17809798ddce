// The values of the official NATS Helm chart 1.x, limited to the fields Holdfast sets and closed (an
// unknown or misspelt field fails), written from the chart's values.yaml: the chart publishes no
// values.schema.json, and neither the chart nor Helm can be had here (infra/k8s/README.md, "NATS").
import { type TSchema, Type } from '@sinclair/typebox';

const closed = { additionalProperties: false } as const;

/** A Kubernetes resource quantity (`500m`, `2Gi`, `8`). */
export const Quantity = Type.String({ pattern: '^[0-9]+(\\.[0-9]+)?(m|k|M|G|T|Ki|Mi|Gi|Ti)?$' });

const Resources = Type.Object(
  { requests: Type.Optional(Type.Record(Type.String(), Quantity)), limits: Type.Optional(Type.Record(Type.String(), Quantity)) },
  closed,
);

const Enabled = Type.Object({ enabled: Type.Boolean() }, closed);

export const NatsChartValues = Type.Object(
  {
    config: Type.Object(
      {
        cluster: Type.Object({ enabled: Type.Boolean(), replicas: Type.Integer({ minimum: 1 }) }, closed),
        jetstream: Type.Object(
          {
            enabled: Type.Boolean(),
            fileStore: Type.Object(
              {
                enabled: Type.Boolean(),
                dir: Type.String(),
                maxSize: Type.Optional(Quantity),
                pvc: Type.Object({ enabled: Type.Boolean(), size: Quantity, storageClassName: Type.Optional(Type.String()) }, closed),
              },
              closed,
            ),
            memoryStore: Type.Object({ enabled: Type.Boolean(), maxSize: Type.Optional(Quantity) }, closed),
          },
          closed,
        ),
        monitor: Enabled,
        // Merged into nats.conf as is: the users of the Holdfast processes (checked against their grants by the test).
        merge: Type.Object(
          {
            authorization: Type.Object(
              {
                users: Type.Array(
                  Type.Object(
                    {
                      user: Type.String(),
                      password: Type.String({ pattern: '^<< \\$[A-Z_]+ >>$' }),
                      permissions: Type.Object(
                        {
                          publish: Type.Object(
                            { allow: Type.Array(Type.String()), deny: Type.Optional(Type.Array(Type.String())) },
                            closed,
                          ),
                          subscribe: Type.Object({ allow: Type.Array(Type.String()) }, closed),
                          allow_responses: Type.Boolean(),
                        },
                        closed,
                      ),
                    },
                    closed,
                  ),
                ),
              },
              closed,
            ),
          },
          closed,
        ),
      },
      closed,
    ),
    container: Type.Object(
      {
        env: Type.Record(
          Type.String(),
          Type.Object(
            { valueFrom: Type.Object({ secretKeyRef: Type.Object({ name: Type.String(), key: Type.String() }, closed) }, closed) },
            closed,
          ),
        ),
        merge: Type.Object({ resources: Resources }, closed),
      },
      closed,
    ),
    podTemplate: Type.Object(
      {
        topologySpreadConstraints: Type.Record(
          Type.String(),
          Type.Object(
            {
              maxSkew: Type.Integer({ minimum: 1 }),
              whenUnsatisfiable: Type.Union([Type.Literal('DoNotSchedule'), Type.Literal('ScheduleAnyway')]),
            },
            closed,
          ),
        ),
      },
      closed,
    ),
    podDisruptionBudget: Enabled,
    promExporter: Enabled,
    natsBox: Enabled,
  },
  closed,
);

export type Schema = TSchema;
