import type { Logger } from '@holdfast/logging';

export interface NewHeadsOptions {
  /** The RPC's websocket address (CHAIN_WS_URLS, or the RPC address as ws://). */
  url: string;
  logger: Logger;
  /** Called with 1 while subscribed, 0 while not (a metric). */
  onSubscribed?: (subscribed: boolean) => void;
  /** The first wait before connecting again; it doubles per failed attempt up to `maxRetryMs`. */
  retryMs?: number;
  maxRetryMs?: number;
  /**
   * How long the polled head may stay ahead of every announced head before the subscription is
   * taken for dead and opened again (a half-open socket announces nothing and never closes).
   */
  staleMs: number;
}

/**
 * New heads by `eth_subscribe newHeads` over a websocket (ADR 28). `watch(onHead)` connects, calls
 * `onHead` for every head announced and once each time the subscription is (re)established (heads
 * may have come while it was down), and reconnects whenever the socket closes, forever, with a
 * backoff. The heads only wake the indexer: what it reads comes from its stored cursor, so a head
 * missed while disconnected loses nothing, and its poll goes on whether subscribed or not.
 */
export function newHeadsSubscription(options: NewHeadsOptions) {
  const log = options.logger.child({ component: 'new-heads' });
  const retryMs = options.retryMs ?? 1_000;
  const maxRetryMs = options.maxRetryMs ?? 30_000;
  /** The newest head announced on the current subscription. */
  let announced = -1n;
  /** Since when the polled head has been ahead of `announced` while subscribed (0: it is not). */
  let behindSince = 0;
  /**
   * A subscription announces only heads mined after it opened: the first poll after it opens gives
   * the head it need not announce (else a chain that mines nothing would look like a quiet socket).
   */
  let awaitingFirstPoll = false;
  /** Closes the current subscription's socket (set while one is up). */
  let reopen: (() => void) | undefined;

  return {
    /**
     * The head the follower's poll found: a subscription that announced nothing that new for
     * `staleMs` is closed, and so opened again.
     */
    polled: (head: bigint) => {
      if (reopen && awaitingFirstPoll) {
        awaitingFirstPoll = false;
        if (head > announced) announced = head;
      }
      if (!reopen || head <= announced) {
        behindSince = 0;
        return;
      }
      if (behindSince === 0) behindSince = Date.now();
      else if (Date.now() - behindSince > options.staleMs) {
        log.warn({ polled: String(head), announced: String(announced) }, 'the new-heads subscription went quiet: opening it again');
        behindSince = 0;
        reopen();
      }
    },
    /** Starts following; the returned function stops (closes the socket, no reconnect). */
    watch: (onHead: () => void): (() => Promise<void>) => {
      let stopped = false;
      let socket: WebSocket | undefined;
      let retry: NodeJS.Timeout | undefined;
      let failures = 0;
      /** Whether the last connection was ever subscribed: a drop is logged once, not every retry. */
      let wasSubscribed = true;

      const connect = () => {
        if (stopped) return;
        let subscription: string | undefined;
        let ended = false;
        const ws = new WebSocket(options.url);
        socket = ws;
        /** This socket is done (closed, or given up as dead): poll meanwhile and connect again later. */
        const end = () => {
          if (ended) return;
          ended = true;
          if (socket === ws) socket = undefined;
          if (subscription) reopen = undefined;
          if (stopped) return;
          if (subscription) options.onSubscribed?.(false);
          if (wasSubscribed) log.warn('no new-heads subscription (socket closed or refused): polling until it is back');
          wasSubscribed = false;
          const wait = Math.min(retryMs * 2 ** failures, maxRetryMs);
          failures += 1;
          retry = setTimeout(connect, wait);
          retry.unref();
        };
        ws.addEventListener('open', () => {
          ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['newHeads'] }));
        });
        ws.addEventListener('message', (event) => {
          let message: { id?: number; result?: unknown; error?: { message?: string }; method?: string; params?: { subscription?: string } };
          try {
            message = JSON.parse(String(event.data));
          } catch {
            return;
          }
          if (message.id === 1) {
            if (typeof message.result !== 'string') {
              log.warn({ reason: message.error?.message }, 'the RPC refused eth_subscribe newHeads: polling only');
              ws.close();
              return;
            }
            subscription = message.result;
            announced = -1n;
            behindSince = 0;
            awaitingFirstPoll = true;
            // A dead socket may never finish its closing handshake: it is left to close on its own.
            reopen = () => {
              ws.close();
              end();
            };
            failures = 0;
            wasSubscribed = true;
            options.onSubscribed?.(true);
            log.info('following new heads by subscription');
            onHead();
            return;
          }
          if (!ended && message.method === 'eth_subscription' && message.params?.subscription === subscription) {
            const number = (message.params as { result?: { number?: string } }).result?.number;
            if (number) announced = BigInt(number) > announced ? BigInt(number) : announced;
            onHead();
          }
        });
        // A failed connection fires 'error' then 'close': reconnecting is handled once, on close.
        ws.addEventListener('error', () => {});
        ws.addEventListener('close', end);
      };
      connect();

      return async () => {
        stopped = true;
        clearTimeout(retry);
        const open = socket;
        socket = undefined;
        if (!open || open.readyState === WebSocket.CLOSED) return;
        // Bounded: a server that never answers the closing handshake does not hold up a shutdown.
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, 1_000);
          open.addEventListener('close', () => {
            clearTimeout(timer);
            resolve();
          });
          open.close();
        });
        options.onSubscribed?.(false);
      };
    },
  };
}

export type NewHeads = ReturnType<typeof newHeadsSubscription>;
