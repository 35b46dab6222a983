// One request's log (GET /v1/logs/:id): what was asked and answered (bodies where captured, as
// text), who asked, retries and fallbacks, cache and guardrail verdicts, tokens, cost, latency, and
// the feedback given on its trace. A log the caller may not see is the API's 404, shown as such.
import type { ComponentChildren } from 'preact';
import { Link, useSearch } from 'wouter-preact';
import { unwrap } from '../api/client.js';
import { can } from '../api/me.js';
import { DataTable } from '../components/data-table.js';
import { ErrorBanner } from '../components/error-banner.js';
import { FactsTable } from '../components/facts-table.js';
import { formatMetadata, formatMs, formatNumber, formatTime, formatUsd } from '../components/format.js';
import { JsonView, TextView } from '../components/json-view.js';
import { Page } from '../components/page.js';
import { useApi } from '../components/use-api.js';
import { useConsole } from '../context.js';
import { LOGS_PATH } from './logs-filters.js';
import {
  type Attempt,
  attemptKind,
  bodyOf,
  type CapturedBody,
  extrasOf,
  type Feedback,
  type GuardrailResult,
  type LogDetail,
  type TokenBreakdown,
} from './logs-types.js';

export function LogDetailView({ id }: { id: string }) {
  const { api } = useConsole();
  const search = useSearch();
  const log = useApi(
    async () => unwrap(await api.GET('/logs/{logId}', { params: { path: { logId: id } } })),
    [id],
  );
  return (
    <Page
      title="Request log"
      actions={
        <Link class="secondary" href={search ? `${LOGS_PATH}?${search}` : LOGS_PATH}>
          ← Back to logs
        </Link>
      }
    >
      <ErrorBanner error={log.error} />
      {log.loading && !log.data ? <p aria-busy="true">Loading…</p> : null}
      {log.data && !log.error ? <LogDetailBody log={log.data} /> : null}
    </Page>
  );
}

function LogDetailBody({ log }: { log: LogDetail }) {
  const x = extrasOf(log);
  const tokens = log.tokens as TokenBreakdown;
  return (
    <div class="log-detail" data-testid="log-detail">
      <article>
        <header class="log-detail-header">
          <span class={log.status_code >= 400 ? 'status status-error' : 'status status-ok'}>
            {log.status_code}
          </span>{' '}
          <strong data-testid="log-model">{log.model ?? '–'}</strong>{' '}
          <span class="muted">
            via {log.provider ?? '–'} ({log.ai_service ?? '–'}) · {formatTime(log.created_at)}
          </span>
        </header>
        <FactsTable
          testId="log-facts"
          rows={[
            ['Log id', <code key="id">{log.id}</code>],
            ['Trace id', log.trace_id ? <TraceLink key="t" traceId={log.trace_id} /> : '–'],
            ['Span', x.span_id ? <code key="s">{x.span_id}</code> : '–'],
            ['Request', `${x.method ?? ''} ${x.path ?? ''}${x.is_stream ? ' (stream)' : ''}`],
            ['Model requested', x.model_requested ?? '–'],
            ['Model served', log.model ?? '–'],
            ['Workspace', log.workspace_id ? <code key="w">{log.workspace_id}</code> : '–'],
            ['API key', log.api_key_id ? <code key="k">{log.api_key_id}</code> : '–'],
            ['User', x.user_id ?? '–'],
            ['Config', x.config_id ? `${x.config_id} (version ${x.config_version ?? '?'})` : '–'],
            [
              'Prompt',
              x.prompt_id
                ? `${x.prompt_id}${x.prompt_version ? ` v${x.prompt_version}` : ''}${x.prompt_label ? ` @${x.prompt_label}` : ''}`
                : '–',
            ],
            ['Cache', <CacheVerdict key="c" status={log.cache_status} />],
            ['Completed', formatTime(x.completed_at)],
            ['Stored', formatTime(x.ingested_at)],
          ]}
        />
        {x.error ? (
          <p class="error" data-testid="log-error">
            <strong>{x.error.code || x.error.type}</strong> {x.error.message}
          </p>
        ) : null}
      </article>

      <Section title="Tokens, cost and latency">
        <div class="grid">
          <FactsTable
            testId="log-tokens"
            rows={[
              ['Input tokens', formatNumber(tokens.input)],
              ['Cached input tokens', formatNumber(tokens.cached_input ?? 0)],
              ['Output tokens', formatNumber(tokens.output)],
              ['Total tokens', `${formatNumber(tokens.total)}${tokens.estimated ? ' (estimated)' : ''}`],
            ]}
          />
          <FactsTable
            testId="log-cost"
            rows={[
              ['Cost', `${formatUsd(log.cost)}${x.currency && x.currency !== 'USD' ? ` ${x.currency}` : ''}`],
              ['Latency', formatMs(log.latency_ms)],
              ['Time to first byte', formatMs(x.time_to_first_byte_ms)],
              ['Gateway overhead', formatMs(x.gateway_overhead_ms)],
            ]}
          />
        </div>
      </Section>

      <Section title="Attempts (retries and fallbacks)">
        <Attempts attempts={x.attempts ?? []} />
      </Section>

      <Section title="Guardrails">
        <Guardrails results={x.guardrail_results ?? []} />
      </Section>

      {log.mcp ? (
        <Section title="MCP">
          <FactsTable
            rows={[
              ['Server', log.mcp.server_slug],
              ['Method', log.mcp.rpc_method ?? '–'],
              ['Tool', log.mcp.tool ?? '–'],
              ['JSON-RPC error', log.mcp.rpc_error_code === null ? '–' : String(log.mcp.rpc_error_code)],
            ]}
          />
        </Section>
      ) : null}

      <Section title="Metadata">
        {Object.keys(log.metadata).length === 0 ? (
          <p class="muted">No metadata.</p>
        ) : (
          <FactsTable testId="log-metadata" rows={Object.entries(log.metadata).map(([k, v]) => [k, v])} />
        )}
      </Section>

      <Section title="Request body">
        <Body body={bodyOf(log.request)} format={log.log_format} label="Request body" testId="request-body" />
      </Section>
      <Section title="Response body">
        <Body
          body={bodyOf(log.response)}
          format={log.log_format}
          label="Response body"
          testId="response-body"
        />
      </Section>

      <Section title="Feedback">
        <FeedbackOfTrace feedback={log.feedback} traceId={log.trace_id} />
      </Section>
    </div>
  );
}

function Section(props: { title: string; children: ComponentChildren }) {
  return (
    <section class="log-section">
      <h3>{props.title}</h3>
      {props.children}
    </section>
  );
}

function TraceLink({ traceId }: { traceId: string }) {
  return (
    <Link href={`${LOGS_PATH}?trace_id=${encodeURIComponent(traceId)}`} title="Every request of this trace">
      <code>{traceId}</code>
    </Link>
  );
}

const CACHE_MEANING: Record<string, string> = {
  hit: 'served from the cache',
  semantic_hit: 'served from the semantic cache',
  miss: 'not in the cache (stored for next time)',
  semantic_miss: 'no similar request in the semantic cache',
  refresh: 'cache bypassed and refreshed',
  disabled: 'cache not used',
};

function CacheVerdict({ status }: { status: string }) {
  return (
    <span data-testid="cache-status">
      <strong>{status}</strong>
      {CACHE_MEANING[status] ? <span class="muted"> · {CACHE_MEANING[status]}</span> : null}
    </span>
  );
}

function Attempts({ attempts }: { attempts: readonly Attempt[] }) {
  if (attempts.length === 0) return <p class="muted">No upstream attempt (answered by the gateway).</p>;
  return (
    <DataTable
      class="striped"
      testId="log-attempts"
      columns={['#', 'Kind', 'Target', 'Provider', 'Model', 'Status', 'Started', 'Latency', 'Error']}
    >
      {attempts.map((a, i) => (
        <tr key={i}>
          <td>{i + 1}</td>
          <td>
            {attemptKind(attempts, i)}
            {a.retry_index > 0 ? ` ${a.retry_index}` : ''}
          </td>
          <td>{a.target_path ?? '–'}</td>
          <td>{a.provider ?? '–'}</td>
          <td>{a.model ?? '–'}</td>
          <td>{a.status_code === 0 ? 'no response' : a.status_code}</td>
          <td>{formatTime(a.started_at)}</td>
          <td>{formatMs(a.latency_ms)}</td>
          <td>{a.error ? `${a.error.code}: ${a.error.message}` : '–'}</td>
        </tr>
      ))}
    </DataTable>
  );
}

function Guardrails({ results }: { results: readonly GuardrailResult[] }) {
  if (results.length === 0) return <p class="muted">No guardrail ran on this request.</p>;
  return (
    <DataTable
      class="striped"
      testId="log-guardrails"
      columns={['Guardrail', 'Stage', 'Verdict', 'Latency', 'Checks']}
    >
      {results.map((g, i) => (
        <tr key={i}>
          <td>{g.guardrail_id ? <code>{g.guardrail_id}</code> : 'inline'}</td>
          <td>{g.stage ?? '–'}</td>
          <td>
            <span class={g.verdict ? 'status status-ok' : 'status status-error'}>
              {g.verdict ? 'passed' : g.denied ? 'failed, denied' : 'failed, allowed'}
            </span>
          </td>
          <td>{formatMs(g.latency_ms)}</td>
          <td>
            <ul class="checks">
              {g.checks.map((c) => (
                <li key={c.id}>
                  <code>{c.id}</code> {c.errored ? 'errored' : c.verdict ? 'passed' : 'failed'}
                  {c.explanation ? <span class="muted"> · {c.explanation}</span> : null}
                </li>
              ))}
            </ul>
          </td>
        </tr>
      ))}
    </DataTable>
  );
}

function Body(props: { body: CapturedBody | null; format: string; label: string; testId: string }) {
  const { body } = props;
  if (!body) return <p class="muted">Not captured (log format: {props.format}).</p>;
  return (
    <>
      <p class="muted body-meta">
        {body.content_type ?? 'no content type'} · {formatNumber(body.size_bytes)} bytes
        {body.truncated ? ' · truncated: only the start was stored' : ''}
      </p>
      {body.json !== undefined ? (
        <JsonView value={body.json} label={props.label} testId={props.testId} />
      ) : (
        <TextView text={body.text ?? ''} label={props.label} testId={props.testId} />
      )}
    </>
  );
}

function FeedbackOfTrace({ feedback, traceId }: { feedback: readonly Feedback[]; traceId: string | null }) {
  const { me } = useConsole();
  const more =
    traceId && can(me, 'feedback.list') ? (
      <Link href={`~/console/feedback?trace_id=${encodeURIComponent(traceId)}`}>Feedback on this trace</Link>
    ) : null;
  if (feedback.length === 0)
    return (
      <p class="muted" data-testid="log-feedback-empty">
        No feedback on this trace. {more}
      </p>
    );
  return (
    <>
      <DataTable
        class="striped"
        testId="log-feedback"
        columns={['Value', 'Weight', 'Metadata', 'By', 'Given']}
      >
        {feedback.map((f) => (
          <tr key={f.id}>
            <td>{f.value}</td>
            <td>{f.weight}</td>
            <td>{formatMetadata(f.metadata)}</td>
            <td>{f.created_by.display_name ?? f.created_by.type}</td>
            <td>{formatTime(f.created_at)}</td>
          </tr>
        ))}
      </DataTable>
      {more}
    </>
  );
}
