// Type-level check (run by `pnpm typecheck`, not by vitest): the SDK's named methods are typed
// from the generated OpenAPI types (ADR 59), and each of their public shapes is still the one
// packages/contracts gives, so callers typed against either keep compiling. A difference here
// means a document and its TypeBox schema disagree: regenerate the documents and the types.
import type * as C from '@holdfast/contracts';
import type { Static } from '@sinclair/typebox';
import type * as S from '../src/index.js';
import type { PaymentsClient, WorkspaceClient } from '../src/index.js';

/** `true` when A and B are assignable both ways, else which way fails. */
type Eq<A, B> = [A] extends [B] ? ([B] extends [A] ? true : 'B not in A') : 'A not in B';
type R<F extends (...a: never[]) => unknown> = Awaited<ReturnType<F>>;
type PC = PaymentsClient;
type WC = WorkspaceClient;
/** Compiles only when every entry is `true`. */
type AllTrue<T extends Record<string, true>> = T;

export type ContractShapes = AllTrue<{
  tx: Eq<S.Transaction, Static<typeof C.PaymentsTransaction>>;
  newTx: Eq<S.NewTransaction, Static<typeof C.CreatedTransaction>>;
  txf: Eq<S.TransactionFilters, Partial<C.TransactionListQuery>>;
  batch: Eq<S.Batch, C.BatchWithLegs>;
  bsum: Eq<S.BatchSummary, C.BatchList['data'][number]>;
  scopes: Eq<S.Scopes, Static<typeof C.ScopeCatalogue>>;
  csf: Eq<S.CheckoutSessionFilters, Partial<C.CheckoutSessionListQuery>>;
  cs: Eq<R<PC['checkout']['sessions']['retrieve']>, C.CheckoutSession>;
  csb: Eq<Parameters<PC['checkout']['sessions']['create']>[0], C.CreateCheckoutSessionBody>;
  txb: Eq<Parameters<PC['transactions']['create']>[0], C.CreateTransactionBody>;
  plat: Eq<R<PC['platforms']['me']>, C.Platform>;
  disp: Eq<R<PC['disputes']['get']>, C.Dispute>;
  dispb: Eq<Parameters<PC['disputes']['open']>[0], C.CreateDisputeBody>;
  ev: Eq<R<PC['disputes']['submitEvidence']>, C.Evidence>;
  op: Eq<R<PC['transactions']['submitHash']>, C.TransactionOperationResult>;
  quote: Eq<R<PC['transactions']['quote']>, C.Quote>;
  stats: Eq<R<PC['transactions']['stats']>, C.TransactionStats>;
  risk: Eq<R<PC['transactions']['atRisk']>, C.AtRiskReport>;
  ver: Eq<R<PC['compliance']['getVerification']>, C.Verification>;
  ctl: Eq<R<PC['controls']['verifyTwoFactor']>, C.ControlVerification>;
  page: Eq<R<PC['checkout']['payer']['page']>, C.CheckoutPage>;
  pay: Eq<R<PC['checkout']['payer']['attach']>, C.CheckoutPayment>;
  x402: Eq<R<PC['x402']['settlement']>, C.X402Settlement>;
  intro: Eq<R<PC['oauth']['introspect']>, C.IntrospectionResponse>;
  me: Eq<R<WC['me']>, C.UserRecord>;
  wsr: Eq<R<WC['workspaces']['get']>, C.WorkspaceRecord>;
  wsb: Eq<Parameters<WC['workspaces']['create']>[0], C.CreateWorkspaceBody>;
  sand: Eq<R<WC['sandboxCredentials']['create']>, C.SandboxCredential>;
  et: Eq<R<WC['webhooks']['eventTypes']>, C.EventTypeInfo[]>;
  hook: Eq<S.WebhookSubscription, C.WebhookSubscription>;
  hooks: Eq<S.WebhookSubscriptionWithSecret, C.WebhookSubscriptionWithSecret>;
  hookb: Eq<Parameters<WC['webhooks']['create']>[1], C.CreateWebhookBody>;
  hooku: Eq<Parameters<WC['webhooks']['update']>[2], C.UpdateWebhookBody>;
  log: Eq<S.WebhookDeliveryLog, C.WebhookDeliveryLog>;
  del: Eq<S.WebhookDelivery, C.WebhookDelivery>;
  rb: Eq<S.ReplayWebhookBody, C.ReplayWebhookBody>;
  rr: Eq<S.ReplayResult, C.ReplayResult>;
  wsq: Eq<Parameters<WC['workspaces']['list']>[0], Partial<C.WorkspaceListQuery> | undefined>;
  whq: Eq<Parameters<WC['webhooks']['list']>[1], Partial<C.ListWebhooksQuery> | undefined>;
  dlq: Eq<Parameters<WC['webhooks']['deliveryLogs']>[2], Omit<Partial<C.DeliveryLogsQuery>, 'offset'> | undefined>;
  dq: Eq<Parameters<PC['disputes']['list']>[0], Partial<C.ListDisputesQuery> | undefined>;
}>;
