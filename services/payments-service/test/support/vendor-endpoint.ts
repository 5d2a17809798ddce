import { type StandIn, type StandInAnswer, type StandInRequest, startStandIn } from '@holdfast/test-fixtures';

/**
 * A stand-in of a vendor's one JSON endpoint behind a bearer key, as the vendors payments calls
 * describe theirs: every request is recorded; none is answered while `mode()` is `hang`; another
 * route answers 404, a missing or wrong key 401, a numeric mode that status; the rest `answer`.
 */
export function startVendorEndpoint(
  endpoint: { method: string; path: string; apiKey: string },
  mode: () => string | number,
  answer: (req: StandInRequest) => StandInAnswer,
): Promise<StandIn> {
  return startStandIn((req) => {
    const current = mode();
    if (current === 'hang') return { status: 200, hang: true };
    if (req.method !== endpoint.method || req.path !== endpoint.path) return { status: 404, body: { error: 'not_found' } };
    if (req.headers.authorization !== `Bearer ${endpoint.apiKey}`) return { status: 401, body: { error: 'unauthorized' } };
    if (typeof current === 'number') return { status: current, body: { error: 'as configured' } };
    return answer(req);
  });
}
