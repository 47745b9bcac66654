import { InMemorySpanExporter } from '@opentelemetry/sdk-trace';
import {
  endHttpClientSpan,
  redactUrl,
  SpanKind,
  startHttpClientSpan,
  startSpan,
  startTracing,
  withContext,
  contextFromTraceparent,
  traceparentOf,
  type Tracing,
} from './index';

describe('redactUrl: url.full without credentials', () => {
  it.each([
    ['https://shop.example.com/api/listings', 'https://shop.example.com/api/listings'],
    ['https://ana:s3cret@shop.example.com/x', 'https://REDACTED:REDACTED@shop.example.com/x'],
    ['https://key@shop.example.com/x', 'https://REDACTED@shop.example.com/x'],
    ['https://shop.example.com/x?token=abc&lang=pt', 'https://shop.example.com/x?token=REDACTED&lang=REDACTED'],
    ['http://127.0.0.1:8080/hook#frag', 'http://127.0.0.1:8080/hook'],
  ])('%s → %s', (url, shown) => {
    expect(redactUrl(url)).toBe(shown);
  });

  it('answers undefined for what is not a URL', () => {
    expect(redactUrl('not a url')).toBeUndefined();
  });
});

describe('HTTP client spans', () => {
  it('are no-ops while tracing is off', () => {
    const span = startHttpClientSpan('send', { method: 'POST', url: 'https://x.example.com/' });
    expect(span.isRecording()).toBe(false);
    endHttpClientSpan(span, { statusCode: 500 });
  });

  describe('tracing on', () => {
    const exporter = new InMemorySpanExporter();
    let tracing: Tracing | undefined;
    beforeAll(async () => {
      tracing = await startTracing({ serviceName: 'http-client-test', exporter, env: {} });
    });
    afterAll(async () => tracing?.shutdown());
    beforeEach(() => exporter.reset());

    it('carry the request attributes and the parent given, and end OK on a 2xx', () => {
      const parent = startSpan('cause');
      const stored = traceparentOf(parent);
      parent.end();
      const span = startHttpClientSpan('send shop', {
        method: 'put',
        url: 'https://u:p@shop.example.com/listings?key=k1',
        parent: contextFromTraceparent(stored),
        attributes: { 'pim.thing': 'a' },
      });
      endHttpClientSpan(span, { statusCode: 201 });
      const [, done] = exporter.getFinishedSpans();
      expect(done.kind).toBe(SpanKind.CLIENT);
      expect(done.parentSpanContext?.spanId).toBe(parent.spanContext().spanId);
      expect(done.attributes).toEqual({
        'http.request.method': 'PUT',
        'url.full': 'https://REDACTED:REDACTED@shop.example.com/listings?key=REDACTED',
        'server.address': 'shop.example.com',
        'server.port': 443,
        'pim.thing': 'a',
        'http.response.status_code': 201,
      });
      expect(done.status.code).toBe(0);
    });

    it('fail with the status code of a 4xx or 5xx, or with the error type given', () => {
      withContext(contextFromTraceparent(undefined), () => {
        const a = startHttpClientSpan('a', { method: 'POST', url: 'http://[::1]:8081/x' });
        endHttpClientSpan(a, { statusCode: 503 });
        const b = startHttpClientSpan('b', { method: 'POST', url: 'http://127.0.0.1/x' });
        endHttpClientSpan(b, { errorType: 'timeout', message: 'no answer within 1000 ms' });
        const c = startHttpClientSpan('c', { method: 'POST', url: 'http://127.0.0.1/x' });
        endHttpClientSpan(c, { statusCode: 302, errorType: '302', message: 'The channel answered 302' });
      });
      const [a, b, c] = exporter.getFinishedSpans();
      expect(a.attributes).toMatchObject({ 'server.address': '::1', 'server.port': 8081, 'error.type': '503' });
      expect(a.status).toEqual({ code: 2, message: '503' });
      expect(b.attributes).toMatchObject({ 'server.port': 80, 'error.type': 'timeout' });
      expect(b.attributes['http.response.status_code']).toBeUndefined();
      expect(b.status).toEqual({ code: 2, message: 'no answer within 1000 ms' });
      expect(c.attributes).toMatchObject({ 'http.response.status_code': 302, 'error.type': '302' });
    });
  });
});
