import { createServer, request } from 'node:http';
import { connect, type Socket } from 'node:net';

export interface RpcProxy {
  /** http://127.0.0.1:<port>: JSON-RPC over HTTP, and websockets while they are allowed. */
  url: string;
  /** Refuses new websocket upgrades (an http-only RPC) or allows them again. */
  refuseWebSockets: (refuse: boolean) => void;
  /** Cuts every open websocket (a dropped subscription). */
  dropWebSockets: () => void;
  /** Open websockets stop passing anything, without closing (a half-open connection). */
  stallWebSockets: () => void;
  /** How many websockets were opened through the proxy so far. */
  webSocketsOpened: () => number;
  stop: () => Promise<void>;
}

/** An RPC in front of anvil whose websocket side a test can take away: HTTP is passed through untouched. */
export async function startRpcProxy(target: string): Promise<RpcProxy> {
  const upstream = new URL(target);
  const sockets = new Set<Socket>();
  const stalled = new WeakSet<Socket>();
  let refuse = false;
  let opened = 0;
  const server = createServer((incoming, outgoing) => {
    const forwarded = request(
      { host: upstream.hostname, port: upstream.port, method: incoming.method, path: incoming.url, headers: incoming.headers },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    forwarded.on('error', () => outgoing.destroy());
    incoming.pipe(forwarded);
  });
  server.on('upgrade', (incoming, client: Socket, head: Buffer) => {
    if (refuse) {
      client.end('HTTP/1.1 400 Bad Request\r\nconnection: close\r\ncontent-length: 0\r\n\r\n');
      return;
    }
    const anvil = connect(Number(upstream.port), upstream.hostname, () => {
      const headers = Object.entries(incoming.headers).map(([name, value]) => `${name}: ${value}`);
      anvil.write(`${incoming.method} ${incoming.url} HTTP/1.1\r\n${headers.join('\r\n')}\r\n\r\n`);
      anvil.write(head);
      opened += 1;
      // By hand rather than pipe(): a stalled pair drops what either side sends.
      client.on('data', (chunk) => stalled.has(client) || anvil.write(chunk));
      anvil.on('data', (chunk) => stalled.has(client) || client.write(chunk));
    });
    for (const socket of [client, anvil]) {
      sockets.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => {
        sockets.delete(socket);
        client.destroy();
        anvil.destroy();
      });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  const dropWebSockets = () => {
    for (const socket of sockets) socket.destroy();
  };
  return {
    url: `http://127.0.0.1:${port}`,
    refuseWebSockets: (value) => {
      refuse = value;
    },
    dropWebSockets,
    stallWebSockets: () => {
      for (const socket of sockets) stalled.add(socket);
    },
    webSocketsOpened: () => opened,
    stop: async () => {
      dropWebSockets();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Whether the indexer at `serviceUrl` reports its new-heads subscription up (1) or down (0). */
export async function headSubscriptionIs(serviceUrl: string, expected: 0 | 1): Promise<boolean> {
  const text = await (await fetch(`${serviceUrl}/metrics`)).text();
  return text.includes(`chain_indexer_head_subscription{network="base-sepolia",service="chain-indexer"} ${expected}`);
}
