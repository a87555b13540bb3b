/**
 * A TLS terminator in front of a plain HTTP server, as an operator's proxy is: it takes TLS on
 * 127.0.0.1 with a certificate made at test time (certs.ts) and pipes the bytes to `port`.
 * Clients of the compatible dialects force https:// and do not verify certificates, so the tests
 * reach the gateway through this.
 */
import { readFileSync } from 'node:fs';
import net, { type AddressInfo } from 'node:net';
import tls from 'node:tls';
import { makeCertificates } from './certs.js';

export interface TlsProxy {
  /** The TLS port. */
  port: number;
  close(): Promise<void>;
}

export async function startTlsProxy(targetPort: number): Promise<TlsProxy> {
  const certs = makeCertificates();
  const server = tls.createServer(
    { cert: readFileSync(certs.certFile), key: readFileSync(certs.keyFile) },
    (secure) => {
      const plain = net.connect({ host: '127.0.0.1', port: targetPort });
      secure.pipe(plain).pipe(secure);
      const end = () => {
        secure.destroy();
        plain.destroy();
      };
      secure.on('error', end);
      plain.on('error', end);
      secure.on('close', end);
      plain.on('close', end);
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        certs.remove();
        server.close(() => resolve());
      }),
  };
}
