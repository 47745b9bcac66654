import {
  contextFromTraceparent,
  endHttpClientSpan,
  startHttpClientSpan,
  startSpan,
  tracingEnabled,
  type Span,
} from '@pim/logging';
import type { ChannelEndpoint } from '@pim/resources';
import type { PublicationEntity } from '../entities/publication.entity';
import type { ChannelAnswer } from './channel.request';

/**
 * The span of one attempt to send a publication (tracing on): the channel request as an HTTP
 * client span, in the trace the publication keeps (`trace_context`: the write that created it, the
 * batch run, or the retry that asked for it) — so an automatic retry is another attempt span in
 * that same trace. Nothing of the trace is sent to the channel.
 */
export function attemptSpan(p: PublicationEntity, endpoint: ChannelEndpoint): Span {
  if (!tracingEnabled()) return startSpan('');
  return startHttpClientSpan(`send ${p.channel_code}`, {
    method: endpoint.method,
    url: endpoint.url,
    parent: contextFromTraceparent(p.trace_context?.traceparent, p.trace_context?.tracestate),
    attributes: {
      'pim.publication.id': p._id,
      'pim.publication.attempt': p.attempts,
      'pim.publication.origin': p.origin,
      'pim.channel.id': p.channel_id,
      'pim.channel.code': p.channel_code,
      'pim.product.id': p.product_id,
      ...(p.batch_id ? { 'pim.publication_batch.id': p.batch_id } : {}),
    },
  });
}

/** Ends an attempt's span with the channel's answer: any answer but a 2xx is an error. */
export function endAttemptSpan(span: Span, answer: ChannelAnswer): void {
  if (!span.isRecording()) return span.end();
  span.setAttribute('pim.publication.outcome', answer.kind);
  if (answer.kind === 'published') return endHttpClientSpan(span, { statusCode: answer.status });
  endHttpClientSpan(span, {
    statusCode: answer.status,
    errorType: answer.status !== undefined ? String(answer.status) : (answer.error ?? answer.kind),
    message: answer.message,
  });
}
