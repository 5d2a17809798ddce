import { connect, createServer } from 'node:net';

/**
 * The one TCP port probe of the repository: the test fixtures, the private nats-server and
 * ./scripts/start pick ports and check servers with it. It lives here, the lowest package all of
 * them import (scripts run with plain node on the built dist/).
 */

/** A TCP port of 127.0.0.1 that was free a moment ago (another process may take it before it is bound). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no free port'))));
    });
  });
}

/** Whether something accepts TCP connections on host:port within `timeoutMs`. */
export function tcpAnswers(host: string, port: number, timeoutMs = 1500): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port, timeout: timeoutMs });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });
}
