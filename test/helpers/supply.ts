/**
 * Upstream configurations for tests: every family on the sandbox (ALL_SANDBOX) unless a test
 * routes it elsewhere, the instances it declares, and VTpass pointed at its fake when given.
 */
import { ALL_SANDBOX, type ProvidersConfig } from '../../core/providers/index.js';
import type { FakeVtpass } from './fake-vtpass.js';

export function testProvidersConfig(options: {
  routing?: Partial<ProvidersConfig['routing']>;
  upstreams?: ProvidersConfig['upstreams'];
  vtpass?: FakeVtpass;
}): ProvidersConfig {
  const { vtpass } = options;
  return {
    routing: { ...ALL_SANDBOX, ...options.routing },
    upstreams: options.upstreams ?? [],
    sandboxDelayMs: 0,
    vtpass:
      vtpass === undefined
        ? null
        : {
            baseUrl: vtpass.baseUrl,
            apiKey: vtpass.apiKey,
            publicKey: vtpass.publicKey,
            secretKey: vtpass.secretKey,
            fallbackPhone: '08099999999',
          },
    vtpassSms: null,
  };
}
