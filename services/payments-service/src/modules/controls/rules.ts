import { CONTROL_CONFIG_SCHEMAS, type Control, type ControlPhase, EmbeddedTemplate, type FieldError } from '@holdfast/contracts';
import { Value } from '@sinclair/typebox/value';
import { compareDecimal } from '../money/index.js';

/*
 * The pure part of controls: validating a template and deciding what one control says about a
 * transaction. No I/O; the service runs these in order and writes what they decide.
 */

/** The phase run at creation. `pre_release` runs when a release is attested; `post_release` is refused (docs/controls.md). */
export const RUN_PHASE: ControlPhase = 'pre_escrow';

/**
 * What may run before a release: checks that pass or refuse on their own. A control that waits
 * for someone (a code, a review) has no place there: the escrowed funds have no state to wait in.
 */
export const RELEASE_CHECK_TYPES: readonly Control['type'][] = ['amount_limit', 'allow_list', 'deny_list'];

/** What one control decided. */
export type Verdict =
  | { kind: 'passed' }
  | { kind: 'failed'; reason: string }
  | { kind: 'flag'; reason: string }
  | { kind: 'challenge'; phone: string }
  | { kind: 'skipped'; reason: string };

/** What a control needs of the transaction. */
export interface ControlSubject {
  amount: string;
  fromAddress: string;
  toAddress: string;
  metadata: Record<string, unknown>;
}

const reasonOf = (message: string) =>
  message === 'Expected required property'
    ? 'is required'
    : message === 'Unexpected property'
      ? 'is not a known parameter'
      : message.replace(/^Expected/, 'must be').toLowerCase();

/** Every problem of a list of controls (schema of each type's config, unique ids), fields under `prefix`. */
export function controlProblems(controls: readonly Control[], prefix: string): FieldError[] {
  const problems: FieldError[] = [];
  const ids = new Set<string>();
  controls.forEach((control, i) => {
    const at = `${prefix}.${i}`;
    if (ids.has(control.id)) problems.push({ field: `${at}.id`, reason: 'must be unique within the template' });
    ids.add(control.id);
    const schema = CONTROL_CONFIG_SCHEMAS[control.type];
    const seen = new Set<string>();
    for (const error of Value.Errors(schema, control.config)) {
      const field = `${at}.config${error.path.replaceAll('/', '.')}`;
      if (seen.has(field)) continue;
      seen.add(field);
      problems.push({ field, reason: reasonOf(error.message) });
    }
    if (control.executionPhase === 'post_release') {
      // After a release the funds are the receiver's: no control can change anything there, and a
      // stored control that never runs would look like a safeguard it is not.
      problems.push({
        field: `${at}.executionPhase`,
        reason:
          'post_release is not supported: once the escrow is released nothing a control decides can change it; put the check in pre_release (it runs before the release) or pre_escrow',
      });
    }
    if (control.executionPhase === 'pre_release' && !RELEASE_CHECK_TYPES.includes(control.type)) {
      problems.push({
        field: `${at}.type`,
        reason: `cannot run in pre_release (only ${RELEASE_CHECK_TYPES.join(', ')}: checks that need no one to act)`,
      });
    }
    const c = control.config as { min?: unknown; max?: unknown };
    if (control.type === 'amount_limit' && c.min !== undefined && c.max !== undefined && seen.size === 0) {
      if (compareDecimal(decimalOf(c.min), decimalOf(c.max)) > 0)
        problems.push({ field: `${at}.config.min`, reason: 'must not exceed max' });
    }
  });
  return problems;
}

/** Every problem of an embedded template (its shape, then its controls). */
export function embeddedTemplateProblems(template: unknown, prefix = 'template'): FieldError[] {
  const problems: FieldError[] = [];
  const seen = new Set<string>();
  for (const error of Value.Errors(EmbeddedTemplate, template)) {
    const field = `${prefix}${error.path.replaceAll('/', '.')}`;
    if (seen.has(field)) continue;
    seen.add(field);
    problems.push({ field, reason: reasonOf(error.message) });
  }
  if (problems.length > 0) return problems;
  return controlProblems((template as EmbeddedTemplate).controls, `${prefix}.controls`);
}

/** A config amount (JSON number or decimal string) as an exact decimal string. */
export function decimalOf(value: unknown): string {
  if (typeof value === 'string') return value;
  const text = String(value);
  return /e/i.test(text) ? (value as number).toFixed(20).replace(/0+$/, '').replace(/\.$/, '') : text;
}

/** The controls of a phase, in execution order (ties keep the template's order). */
export function controlsOfPhase(controls: readonly Control[], phase: ControlPhase = RUN_PHASE): Control[] {
  return controls
    .map((control, index) => ({ control, index }))
    .filter(({ control }) => control.executionPhase === phase)
    .sort((a, b) => a.control.executionOrder - b.control.executionOrder || a.index - b.index)
    .map(({ control }) => control);
}

const lower = (s: string) => s.trim().toLowerCase();

function listedAddresses(control: Control, s: ControlSubject): { from: boolean; to: boolean; applyTo: 'from' | 'to' | 'both' } {
  const config = control.config as { addresses: string[]; applyTo?: 'from' | 'to' | 'both' };
  const list = new Set(config.addresses.map(lower));
  return { from: list.has(lower(s.fromAddress)), to: list.has(lower(s.toAddress)), applyTo: config.applyTo ?? 'both' };
}

/** The phone a user-action control sends its code to: the control's config, else the transaction's metadata. */
export function phoneOf(control: Control, s: ControlSubject): string | null {
  const configured = (control.config as { phoneNumber?: string }).phoneNumber;
  if (configured) return configured;
  const fromMetadata = s.metadata.phoneNumber;
  return typeof fromMetadata === 'string' && /^\+[1-9]\d{6,14}$/.test(fromMetadata) ? fromMetadata : null;
}

/** What `control` says about the transaction (an active control of the phase being run). */
export function evaluate(control: Control, s: ControlSubject): Verdict {
  switch (control.type) {
    case 'amount_limit': {
      const { min, max } = control.config as { min?: unknown; max?: unknown };
      if (min !== undefined && compareDecimal(s.amount, decimalOf(min)) < 0) {
        return { kind: 'failed', reason: `amount ${s.amount} is below the minimum ${decimalOf(min)}` };
      }
      if (max !== undefined && compareDecimal(s.amount, decimalOf(max)) > 0) {
        return { kind: 'failed', reason: `amount ${s.amount} is above the maximum ${decimalOf(max)}` };
      }
      return { kind: 'passed' };
    }
    case 'allow_list': {
      const { from, to, applyTo } = listedAddresses(control, s);
      if ((applyTo === 'from' || applyTo === 'both') && !from) return { kind: 'failed', reason: 'fromAddress is not on the allow list' };
      if ((applyTo === 'to' || applyTo === 'both') && !to) return { kind: 'failed', reason: 'toAddress is not on the allow list' };
      return { kind: 'passed' };
    }
    case 'deny_list': {
      const { from, to, applyTo } = listedAddresses(control, s);
      if ((applyTo === 'from' || applyTo === 'both') && from) return { kind: 'failed', reason: 'fromAddress is on the deny list' };
      if ((applyTo === 'to' || applyTo === 'both') && to) return { kind: 'failed', reason: 'toAddress is on the deny list' };
      return { kind: 'passed' };
    }
    case 'risk_review': {
      const { always, minAmount } = control.config as { always?: boolean; minAmount?: unknown };
      if (always === true || (always === undefined && minAmount === undefined))
        return { kind: 'flag', reason: 'every transaction is reviewed' };
      if (minAmount !== undefined && compareDecimal(s.amount, decimalOf(minAmount)) >= 0) {
        return { kind: 'flag', reason: `amount ${s.amount} is at least ${decimalOf(minAmount)}` };
      }
      return { kind: 'passed' };
    }
    case 'two_factor':
    case 'vendor_sms': {
      const phone = phoneOf(control, s);
      if (!phone) return { kind: 'failed', reason: 'no phone number (config.phoneNumber or metadata.phoneNumber) to send the code to' };
      return { kind: 'challenge', phone };
    }
  }
}
