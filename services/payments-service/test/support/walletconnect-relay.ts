import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

// A local stand-in for WalletConnect's relay (wss://relay.walletconnect.org), which cannot be
// reached from here. The relay is a message router that never sees the content: both clients
// encrypt end to end (the pairing's and the session's symmetric keys never leave them), so the
// stand-in runs the relay's side of the JSON-RPC protocol of @walletconnect/core 2.25 and nothing
// else: `irn_subscribe` / `irn_batchSubscribe` (a subscription id; messages already published to
// the topic are delivered, as the relay's mailbox does), `irn_publish` (stored for its ttl and
// delivered to every other subscriber as `irn_subscription`), `irn_unsubscribe`,
// `irn_batchFetchMessages` (nothing more than what subscribing delivered), and the two publish
// shortcuts of Sign 2.25: `wc_proposeSession` (the proposal, on the pairing topic, its proposer
// subscribed to that topic by the relay) and `wc_approveSession` (the proposal's answer on the
// pairing topic, the settlement on the session topic, its approver subscribed to the latter). The WebSocket itself is RFC 6455 text frames, written here (no library: a test peer).
// What the real relay adds and this does not: project-id checks, rate limits, push notifications,
// message tags' routing to the wallet's push server.

export interface RelayStandIn {
  /** ws://127.0.0.1:<port>: what a client's relayUrl names. */
  url: string;
  /** Every connection's URL (its query carries the client's projectId and auth JWT). */
  connections: URL[];
  /** Every JSON-RPC method the clients sent, in order. */
  methods: string[];
  close(): Promise<void>;
}

interface Peer {
  socket: Socket;
  send(text: string): void;
  subscriptions: Map<string, string>;
}

interface Stored {
  topic: string;
  message: string;
  tag: number;
  publishedAt: number;
  expiresAt: number;
  from: Peer;
  attestation?: string;
}

const GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';

/** One text frame, unmasked (server to client). */
function frame(text: string, opcode = 0x1): Buffer {
  const body = Buffer.from(text);
  const head =
    body.length < 126
      ? Buffer.from([0x80 | opcode, body.length])
      : body.length < 65536
        ? Buffer.from([0x80 | opcode, 126, body.length >> 8, body.length & 0xff])
        : Buffer.concat([
            Buffer.from([0x80 | opcode, 127]),
            (() => {
              const b = Buffer.alloc(8);
              b.writeBigUInt64BE(BigInt(body.length));
              return b;
            })(),
          ]);
  return Buffer.concat([head, body]);
}

/** Reads whole frames from `buffer`; returns them and what is left. Client frames are masked. */
function readFrames(buffer: Buffer): { frames: { opcode: number; fin: boolean; payload: Buffer }[]; rest: Buffer } {
  const frames: { opcode: number; fin: boolean; payload: Buffer }[] = [];
  let offset = 0;
  while (buffer.length - offset >= 2) {
    const b0 = buffer[offset]!;
    const b1 = buffer[offset + 1]!;
    let length = b1 & 0x7f;
    let at = offset + 2;
    if (length === 126) {
      if (buffer.length < at + 2) break;
      length = buffer.readUInt16BE(at);
      at += 2;
    } else if (length === 127) {
      if (buffer.length < at + 8) break;
      length = Number(buffer.readBigUInt64BE(at));
      at += 8;
    }
    const masked = (b1 & 0x80) !== 0;
    const mask = masked ? buffer.subarray(at, at + 4) : null;
    if (masked) at += 4;
    if (buffer.length < at + length) break;
    const payload = Buffer.from(buffer.subarray(at, at + length));
    if (mask) for (let i = 0; i < payload.length; i++) payload[i]! ^= mask[i % 4]!;
    frames.push({ opcode: b0 & 0x0f, fin: (b0 & 0x80) !== 0, payload });
    offset = at + length;
  }
  return { frames, rest: buffer.subarray(offset) };
}

/**
 * The raw `id` of a JSON-RPC message, as it was written: WalletConnect's ids are integers above
 * 2^53 (a JSON.parse would round them, and the client would never match the answer).
 */
const rawId = (text: string) => /"id"\s*:\s*("(?:[^"\\]|\\.)*"|-?\d+)/.exec(text)?.[1] ?? 'null';

export async function startRelayStandIn(): Promise<RelayStandIn> {
  const connections: URL[] = [];
  const methods: string[] = [];
  const peers = new Set<Peer>();
  const mailbox: Stored[] = [];
  let nextId = 1;

  const deliver = (peer: Peer, m: Stored) => {
    const subscription = peer.subscriptions.get(m.topic);
    if (!subscription || peer === m.from) return;
    const data = {
      topic: m.topic,
      message: m.message,
      publishedAt: m.publishedAt,
      tag: m.tag,
      ...(m.attestation ? { attestation: m.attestation } : {}),
    };
    peer.send(
      JSON.stringify({
        id: Date.now() * 1000 + (nextId++ % 1000),
        jsonrpc: '2.0',
        method: 'irn_subscription',
        params: { id: subscription, data },
      }),
    );
  };
  const publish = (from: Peer, topic: string, message: string, ttl: number, tag: number, attestation?: string) => {
    const now = Date.now();
    const stored: Stored = {
      topic,
      message,
      tag,
      publishedAt: now,
      expiresAt: now + ttl * 1000,
      from,
      ...(attestation ? { attestation } : {}),
    };
    mailbox.push(stored);
    for (const peer of peers) deliver(peer, stored);
  };
  const subscribe = (peer: Peer, topic: string) => {
    const id = peer.subscriptions.get(topic) ?? createHash('sha256').update(topic).update(randomBytes(8)).digest('hex');
    peer.subscriptions.set(topic, id);
    return id;
  };
  const mail = (peer: Peer, topics: string[]) => {
    const now = Date.now();
    for (const m of mailbox) if (topics.includes(m.topic) && m.expiresAt > now) deliver(peer, m);
  };

  function handle(peer: Peer, text: string) {
    const message = JSON.parse(text) as { method?: string; params?: Record<string, unknown>; result?: unknown; error?: unknown };
    if (!message.method) return; // an answer of the client's (its acknowledgement of irn_subscription)
    methods.push(message.method);
    const id = rawId(text);
    const reply = (result: unknown) => peer.send(`{"id":${id},"jsonrpc":"2.0","result":${JSON.stringify(result)}}`);
    const p = message.params ?? {};
    const ttl = Number(p.ttl ?? 300);
    switch (message.method) {
      case 'irn_subscribe': {
        const topic = String(p.topic);
        reply(subscribe(peer, topic));
        return mail(peer, [topic]);
      }
      case 'irn_batchSubscribe': {
        const topics = (p.topics as string[]) ?? [];
        reply(topics.map((t) => subscribe(peer, t)));
        return mail(peer, topics);
      }
      case 'irn_unsubscribe':
        peer.subscriptions.delete(String(p.topic));
        return reply(true);
      case 'irn_batchUnsubscribe':
        for (const s of (p.subscriptions as { topic: string }[]) ?? []) peer.subscriptions.delete(s.topic);
        return reply(true);
      case 'irn_batchFetchMessages':
        return reply({ messages: [], hasMore: false });
      case 'irn_publish':
        reply(true);
        return publish(peer, String(p.topic), String(p.message), ttl, Number(p.tag ?? 0), p.attestation as string | undefined);
      case 'wc_proposeSession':
        // The proposer is subscribed to the pairing topic by the relay (it subscribes no more itself).
        subscribe(peer, String(p.pairingTopic));
        reply(true);
        return publish(peer, String(p.pairingTopic), String(p.sessionProposal), ttl, 1100, p.attestation as string | undefined);
      case 'wc_approveSession':
        // The approver likewise to the session topic.
        subscribe(peer, String(p.sessionTopic));
        reply(true);
        publish(peer, String(p.pairingTopic), String(p.sessionProposalResponse), ttl, 1101);
        return publish(peer, String(p.sessionTopic), String(p.sessionSettlementRequest), ttl, 1102);
      default:
        peer.send(`{"id":${id},"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"}}`);
    }
  }

  const server = createServer((_req, res) => res.writeHead(426).end());
  server.on('upgrade', (request: IncomingMessage, socket: Socket, head: Buffer) => {
    const key = request.headers['sec-websocket-key'];
    if (typeof key !== 'string') return socket.destroy();
    connections.push(new URL(request.url ?? '/', 'ws://relay.local'));
    const accept = createHash('sha1')
      .update(key + GUID)
      .digest('base64');
    socket.write(
      `HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`,
    );
    socket.setNoDelay(true);
    const peer: Peer = {
      socket,
      subscriptions: new Map(),
      send: (text) => {
        if (!socket.destroyed) socket.write(frame(text));
      },
    };
    peers.add(peer);
    let pending: Buffer = Buffer.alloc(0);
    let partial: Buffer[] = [];
    const onData = (chunk: Buffer) => {
      const { frames, rest } = readFrames(Buffer.concat([pending, chunk]));
      pending = rest;
      for (const f of frames) {
        if (f.opcode === 0x8) {
          socket.end(frame('', 0x8));
          continue;
        }
        if (f.opcode === 0x9) {
          socket.write(frame(f.payload.toString(), 0xa));
          continue;
        }
        if (f.opcode === 0xa) continue;
        partial.push(f.payload);
        if (!f.fin) continue;
        const text = Buffer.concat(partial).toString();
        partial = [];
        try {
          handle(peer, text);
        } catch {
          // Not JSON-RPC: the real relay ignores it too.
        }
      }
    };
    socket.on('data', onData);
    // What the client sent right after its handshake came with it.
    if (head.length > 0) onData(head);
    const drop = () => peers.delete(peer);
    socket.on('close', drop);
    socket.on('error', drop);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `ws://127.0.0.1:${port}`,
    connections,
    methods,
    async close() {
      for (const peer of peers) peer.socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
