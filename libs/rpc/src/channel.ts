/**
 * Channel options every gRPC client of the platform uses (app clients and health checks).
 *
 * - Reconnects fast: a restarted app must be reachable again within a second or two, not after
 *   grpc-js's default back-off (up to two minutes) has run out.
 * - Spreads calls over every address the target resolves to (`round_robin`): every replica behind
 *   a headless Service's DNS name, or each address of an `ipv4:127.0.0.1:50051,127.0.0.1:50071`
 *   target (`npm start -- --replicas 2`). With one address it behaves as grpc-js's default.
 */
export const CHANNEL_OPTIONS: Readonly<Record<string, string | number>> = {
  'grpc.initial_reconnect_backoff_ms': 200,
  'grpc.max_reconnect_backoff_ms': 2_000,
  'grpc.service_config': JSON.stringify({ loadBalancingConfig: [{ round_robin: {} }] }),
};

// grpc-js's resolver schemes, with an optional authority (`dns://8.8.8.8/`).
const RESOLVER_SCHEME = /^(dns|ipv4|ipv6|unix|unix-abstract|vsock|xds):(\/\/[^/]*\/)?/i;

/**
 * The host and port of a target for span attributes: `127.0.0.1:50051` as it is; of a target
 * naming several addresses (`ipv4:a:1,b:2`) or a resolver (`dns:///catalog:50051`), the first.
 */
export function targetHostPort(target: string): { host: string; port?: number } {
  const first = target.replace(RESOLVER_SCHEME, '').split(',')[0];
  const colon = first.lastIndexOf(':');
  const port = Number(first.slice(colon + 1));
  return colon > 0 && Number.isInteger(port) && port > 0
    ? { host: first.slice(0, colon).replace(/^\[|\]$/g, ''), port }
    : { host: first };
}
