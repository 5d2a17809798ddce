import type { Queryable } from '@holdfast/db';
import type { TransactionRow } from './repository.js';
import type { TransactionAction } from './state-machine.js';

/**
 * What transaction creation asks the controls module: the port is declared here, by its user, and
 * implemented by `controls` (which depends on transactions, never the reverse).
 *
 * `prepare` runs before anything is written: it resolves the template (`templateId`, its alias
 * `contractTemplateId`, or the embedded `template`) and throws an AppError (404 unknown template,
 * 400 invalid) so bad input writes nothing. `afterCreate` runs inside the creation's database
 * transaction, after the row and its `transaction.created` event were written: it runs the
 * template's pre-escrow controls in phase and order and returns the move they call for (none, or
 * `require_user_action`, `flag_for_review`, `fail_control`), which creation applies through the
 * state machine in the same transaction.
 */
export interface PreparedTemplate {
  templateId: string | null;
  /** The template as stored on the transaction (the embedded one, or a copy of the library's). */
  snapshot: Record<string, unknown> | null;
}

export interface ControlsOutcome {
  action: Extract<TransactionAction, 'require_user_action' | 'flag_for_review' | 'fail_control'> | null;
  reason?: string;
}

export interface ControlsGate {
  prepare(platformId: string, input: { templateId?: string; template?: Record<string, unknown> }): Promise<PreparedTemplate>;
  afterCreate(tx: Queryable, transaction: TransactionRow, template: PreparedTemplate): Promise<ControlsOutcome>;
}

/** No controls: templates are recorded as sent, nothing is checked (until the controls module replaces it). */
export const noControls: ControlsGate = {
  async prepare(_platformId, input) {
    return { templateId: input.templateId ?? null, snapshot: input.template ?? null };
  },
  async afterCreate() {
    return { action: null };
  },
};
