// Pins an overlay's images to the digests a release pushed, in its kustomization.yaml (comments
// kept), so the cluster runs exactly the bytes that were built and tested, whatever a tag points to
// later:
//   node infra/k8s/src/pin-images.ts infra/k8s/overlays/production --tag 0.2.0 \
//     payments-service@sha256:<64 hex> workspace-service@sha256:... webhook-dispatcher@sha256:... chain-indexer@sha256:...
// The digest of each pushed image is what the registry answered to the push (`buildah push
// --digestfile`, `docker buildx build --push --metadata-file`, `crane digest`). The tag stays
// beside the digest for people (`image:0.2.0@sha256:...`); the digest is what the kubelet pulls.
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseDocument } from 'yaml';

const DIGEST = /^sha256:[0-9a-f]{64}$/;

export interface Pin {
  /** The image's name in the base (`holdfast/payments-service`), or its short name (`payments-service`). */
  name: string;
  digest: string;
}

/** Sets newTag (when given) and digest of each named image in `<overlay>/kustomization.yaml`. */
export function pinImages(overlay: string, pins: Pin[], tag?: string): void {
  const file = join(overlay, 'kustomization.yaml');
  const document = parseDocument(readFileSync(file, 'utf8'));
  const images = document.get('images') as { items: { get: (k: string) => unknown; set: (k: string, v: unknown) => void }[] } | undefined;
  for (const pin of pins) {
    if (!DIGEST.test(pin.digest)) throw new Error(`${pin.name}: ${pin.digest} is not a sha256 digest`);
    const name = pin.name.includes('/') ? pin.name : `holdfast/${pin.name}`;
    const entry = images?.items.find((item) => item.get('name') === name);
    if (!entry) throw new Error(`${file}: no images entry named ${name}`);
    if (tag !== undefined) entry.set('newTag', tag);
    entry.set('digest', pin.digest);
  }
  writeFileSync(file, document.toString({ lineWidth: 0 }));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const tagAt = args.indexOf('--tag');
  const tag = tagAt === -1 ? undefined : args.splice(tagAt, 2)[1];
  const [overlay, ...rest] = args;
  if (!overlay || rest.length === 0) {
    process.stderr.write('usage: node infra/k8s/src/pin-images.ts <overlay dir> [--tag X.Y.Z] <name>@sha256:<digest>...\n');
    process.exit(2);
  }
  const pins = rest.map((arg) => {
    const at = arg.indexOf('@');
    return { name: arg.slice(0, at), digest: arg.slice(at + 1) };
  });
  pinImages(resolve(process.env.INIT_CWD ?? process.cwd(), overlay), pins, tag);
}
