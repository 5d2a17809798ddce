// The public face of the remote-tasks module: what other modules use of it. Another module imports
// from here, never from its files (the architecture test fails on that).

export { type RemoteTasksOutbox, task } from './service.js';
