import { activeTraceCarrier, contextFromCarrier, TRACE_FIELDS, type TraceCarrier } from '@holdfast/logging';
import { type MsgHdrs, headers as natsHeaders } from '@nats-io/transport-node';
import type { Context } from '@opentelemetry/api';

/** Sets the active trace context (W3C `traceparent`, `tracestate`) on NATS headers; nothing when tracing is off. */
export function injectTraceHeaders(headers: MsgHdrs): MsgHdrs {
  for (const [name, value] of Object.entries(activeTraceCarrier() ?? {})) headers.set(name, value);
  return headers;
}

/** Headers carrying the active trace context, or undefined when there is none. */
export function traceHeaders(): MsgHdrs | undefined {
  return activeTraceCarrier() ? injectTraceHeaders(natsHeaders()) : undefined;
}

/** The context a message's headers carry (the producer's span), or the root context. */
export function contextOfHeaders(headers: MsgHdrs | undefined): Context {
  const carrier: TraceCarrier = {};
  for (const name of TRACE_FIELDS) {
    const value = headers?.get(name);
    if (value) carrier[name] = value;
  }
  return contextFromCarrier(carrier);
}
