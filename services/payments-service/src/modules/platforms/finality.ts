import { DEFAULT_FINALITY, type FinalityLevel, higherFinality, PlatformFinality, validationError } from '@holdfast/contracts';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { compareDecimal } from '../money/index.js';

const checkFinality = TypeCompiler.Compile(PlatformFinality);

/** The platform's finality rule out of its settings (null: none, so `confirmed`). */
export function platformFinality(settings: Record<string, unknown>): PlatformFinality | null {
  const rule = settings.finality;
  return rule && typeof rule === 'object' && !Array.isArray(rule) && checkFinality.Check(rule) ? rule : null;
}

/**
 * 400 naming the field when `settings.finality` is not a finality rule (docs/transactions.md):
 * `{defaultFinality?, threshold?: {amountAbove, finality}}`, levels `seen`, `confirmed`, `safe`,
 * `finalized`. Checked before the platform is written; other settings stay free-form.
 */
export function checkFinalitySettings(settings: Record<string, unknown> | undefined): void {
  if (settings === undefined || !('finality' in settings)) return;
  const rule = settings.finality;
  if (rule === null) return;
  if (checkFinality.Check(rule)) return;
  const first = [...checkFinality.Errors(rule)][0];
  const path = first?.path ? first.path.replace(/^\//, '').replaceAll('/', '.') : '';
  throw validationError([
    {
      field: path ? `settings.finality.${path}` : 'settings.finality',
      reason: `must be {defaultFinality?, threshold?: {amountAbove, finality}} with levels seen, confirmed, safe or finalized (${first?.message ?? 'invalid'})`,
    },
  ]);
}

/**
 * The level at which a transaction counts: the create's `finality`, else the platform's default,
 * else `confirmed`; raised to the threshold's level when the amount is above the threshold.
 */
export function requiredFinalityOf(rule: PlatformFinality | null, amount: string, requested: FinalityLevel | undefined): FinalityLevel {
  const chosen = requested ?? rule?.defaultFinality ?? DEFAULT_FINALITY;
  const threshold = rule?.threshold;
  return threshold && compareDecimal(amount, threshold.amountAbove) > 0 ? higherFinality(chosen, threshold.finality) : chosen;
}
