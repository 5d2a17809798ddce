import {
  AppError,
  type CheckVerificationBody,
  type CreateVerificationBody,
  IDENTITY_PROVIDER_SIGNATURE_TOLERANCE_SECONDS,
  type IdentityProviderCallback,
  type IdentityProviderCallbackResult,
  notFound,
  uuidv7,
  type Verification,
  type VerificationStatus,
} from '@holdfast/contracts';
import type { Principal } from '../auth/index.js';
import type { IdentityProvider } from './identity-provider.js';
import type { ComplianceRepository, VerificationChanges } from './repository.js';
import { verifyCallbackSignature } from './signature.js';
import { decideMove, INITIAL_VERIFICATION_STATUS } from './state-machine.js';

export interface ComplianceServiceDeps {
  repository: ComplianceRepository;
  provider: IdentityProvider;
  /** The secret the provider signs its callbacks with (IDENTITY_PROVIDER_WEBHOOK_SECRET). */
  webhookSecret: string;
  nowMs?: () => number;
}

const SIGNATURE_MESSAGES = {
  missing: 'Missing X-Identity-Provider-Signature',
  malformed: 'Malformed X-Identity-Provider-Signature',
  stale: 'The signature timestamp is outside the tolerance',
  mismatch: 'Invalid signature',
} as const;

/** Compliance verifications of the calling platform, and the identity provider's callback. */
export function createComplianceService(deps: ComplianceServiceDeps) {
  const { repository, provider } = deps;
  const nowMs = deps.nowMs ?? Date.now;

  /** Opens the inquiry at the provider first: when it fails (502), nothing is stored. */
  async function create(principal: Principal, body: CreateVerificationBody): Promise<Verification> {
    const id = uuidv7();
    const inquiry = await provider.createInquiry({ referenceId: id, type: body.type });
    return repository.insert({
      id,
      platformId: principal.platformId,
      userId: body.userId,
      type: body.type,
      status: INITIAL_VERIFICATION_STATUS,
      provider: provider.name,
      externalInquiryId: inquiry.externalInquiryId,
      externalSessionToken: inquiry.externalSessionToken,
      metadata: body.metadata ?? {},
    });
  }

  /** The latest verification of the user and type for the calling platform. */
  async function check(principal: Principal, body: CheckVerificationBody): Promise<Verification> {
    const found = await repository.latest(principal.platformId, body.userId, body.type);
    if (!found) throw notFound('Verification');
    return found;
  }

  async function get(principal: Principal, id: string): Promise<Verification> {
    const found = await repository.get(principal.platformId, id);
    if (!found) throw notFound('Verification');
    return found;
  }

  /** Throws 401 unless the raw body carries a valid, fresh signature of the provider. */
  function verifyCallback(header: string | undefined, rawBody: Buffer): void {
    const checked = verifyCallbackSignature(header, rawBody, deps.webhookSecret, {
      nowMs: nowMs(),
      toleranceSeconds: IDENTITY_PROVIDER_SIGNATURE_TOLERANCE_SECONDS,
    });
    if (!checked.ok) throw new AppError('UNAUTHORIZED', SIGNATURE_MESSAGES[checked.reason]);
  }

  /**
   * Applies a (verified) provider report in one transaction: the verification is locked, a
   * processed event answers its first outcome again without changing anything, and a move the
   * status rules refuse is recorded as `ignored`. An unknown inquiry is 404 and is not recorded:
   * the provider retries, and the callback can overtake the commit of the verification it names.
   */
  async function handleCallback(report: IdentityProviderCallback): Promise<IdentityProviderCallbackResult> {
    return repository.transaction(async (tx) => {
      const verification = await repository.lockByInquiry(tx, provider.name, report.inquiryId);
      if (!verification) throw notFound('Inquiry');
      const answer = (outcome: IdentityProviderCallbackResult['outcome'], status: VerificationStatus) => ({
        received: true as const,
        eventId: report.eventId,
        outcome,
        verificationId: verification.id,
        status,
      });

      if (await repository.findEvent(tx, provider.name, report.eventId)) return answer('duplicate', verification.status);

      const decision = decideMove(verification.status, report.status);
      let outcome: IdentityProviderCallbackResult['outcome'] =
        decision === 'move' ? 'applied' : decision === 'unchanged' ? 'unchanged' : 'ignored';
      let status = verification.status;
      if (decision === 'move') status = (await repository.applyChanges(tx, verification.id, changesOf(report))).status;
      if (
        !(await repository.recordEvent(tx, { provider: provider.name, eventId: report.eventId, verificationId: verification.id, outcome }))
      ) {
        outcome = 'duplicate';
      }
      return answer(outcome, status);
    });
  }

  function changesOf(report: IdentityProviderCallback): VerificationChanges {
    const at = report.occurredAt ?? new Date(nowMs()).toISOString();
    const common = { status: report.status, level: report.level, riskRating: report.riskRating };
    switch (report.status) {
      case 'approved':
        return { ...common, rejectionReason: null, verifiedAt: report.verifiedAt ?? at, expiresAt: report.expiresAt ?? null };
      case 'rejected':
        return { ...common, rejectionReason: report.rejectionReason ?? 'Rejected by the identity provider' };
      case 'expired':
        return { ...common, expiresAt: report.expiresAt ?? at };
      default:
        return common;
    }
  }

  return { create, check, get, verifyCallback, handleCallback };
}

export type ComplianceService = ReturnType<typeof createComplianceService>;
