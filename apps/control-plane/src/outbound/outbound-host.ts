// Hosts the control plane itself calls on an organisation's say-so (secret managers, MCP servers and
// their token endpoints): never a cloud metadata endpoint, which would hand out the control plane's
// own cloud credentials. Private addresses stay allowed: those services usually run inside the
// network. (Provider hosts are checked by the gateways' SSRF layer, which the control plane never calls.)
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';

/** Link-local IPv4 (169.254/16, AWS/GCP/Azure metadata) and AWS's IPv6 metadata address. */
const METADATA = [/^169\.254\./, /^fd00:ec2::254$/i, /^::ffff:169\.254\./i];

export class MetadataHostError extends Error {}

/** Resolves the URL's host and throws MetadataHostError when any address is a metadata one. */
export async function assertNotMetadataHost(url: URL): Promise<void> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const addresses = isIP(host) ? [host] : (await lookup(host, { all: true })).map((a) => a.address);
  if (addresses.some((a) => METADATA.some((m) => m.test(a)))) {
    throw new MetadataHostError(`${url.host} is a link-local (cloud metadata) address: refused`);
  }
}
