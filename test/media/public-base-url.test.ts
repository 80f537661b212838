import assert from 'node:assert/strict';
import { isPublicBaseUrl } from '../../src/domain/media/public-base-url.js';

/** Which BASE_URLs a network fetching media from Herald can reach: the rule of src/domain/media/public-base-url.ts. */
describe('a public BASE_URL', () => {
  it('is https on a public name or address', () => {
    for (const url of [
      'https://herald.example.com',
      'https://social.acme.co.uk/herald',
      'https://93.184.216.34',
      'https://[2606:2800:220:1::1]',
    ]) {
      assert.equal(isPublicBaseUrl(url), true, url);
    }
  });

  it('is not plain http, a local name, or a loopback, private, link-local, shared or unique-local address', () => {
    for (const url of [
      'http://herald.example.com',
      'https://localhost:8080',
      'https://herald',
      'https://herald.localhost',
      'https://nas.local',
      'https://herald.internal',
      'https://box.home.arpa',
      'https://herald.test',
      'https://127.0.0.1',
      'https://10.1.2.3',
      'https://172.20.0.5',
      'https://192.168.1.10',
      'https://169.254.169.254',
      'https://100.64.0.1',
      'https://0.0.0.0',
      'https://[::1]',
      'https://[fd00::1]',
      'https://[fe80::1]',
      'https://[::ffff:127.0.0.1]',
      'not a url',
    ]) {
      assert.equal(isPublicBaseUrl(url), false, url);
    }
  });
});
