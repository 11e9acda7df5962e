/**
 * V8 flags the server runs with: `npm start` passes them (package.json), and so do the
 * cluster script and the benchmark, which start server processes themselves.
 *
 * --max-semi-space-size=16 (MB): V8 otherwise grows its young generation up to 64 MB
 * semi-spaces when many objects survive at once (10,000 sockets connecting) and keeps
 * those pages resident. Capped, with 10,000 idle clients: 5.9 KB of RSS per connection
 * instead of 13.7 KB, p99 send-to-receive 4.5 ms instead of 20.7 ms at 1,000 msg/s
 * (shorter scavenges), the same throughput (`npm run bench`, same run).
 */
/*
 * --expose-gc: streamed attachments ask for a minor collection every 16 MiB
 * (attachments/body-pressure.ts), which V8 would otherwise start only after 64 MB of body
 * buffers, as a full one: a 1 GB upload grew the server by 64 MiB, now by 15 MiB, and the
 * copy server of the same run by 44 (`npm run bench:attachments`). SIGUSR2 also collects
 * garbage then (main.ts: the benchmark measures memory after it).
 */
export const SERVER_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=16', '--expose-gc'];
