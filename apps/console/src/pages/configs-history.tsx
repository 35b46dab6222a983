// A config's version history: the versions one page at a time (GET /configs/{id}/versions) and a
// line diff between any two of them (GET .../versions/{version} for each), latest against the one
// before by default.
import { useEffect, useState } from 'preact/hooks';
import { Link } from 'wouter-preact';
import { unwrap } from '../api/client.js';
import { DataTable } from '../components/data-table.js';
import { ErrorBanner } from '../components/error-banner.js';
import { FilterSelect } from '../components/filter-select.js';
import { formatTime } from '../components/format.js';
import { ListPager } from '../components/list-pager.js';
import { Page } from '../components/page.js';
import { useApi } from '../components/use-api.js';
import { VersionDiff } from '../components/version-diff.js';
import { useConsole } from '../context.js';
import { configText } from './configs-param.js';

export const VERSIONS_PAGE_SIZE = 20;

export function ConfigHistory(props: { id: string }) {
  const { api } = useConsole();
  const [page, setPage] = useState(0);
  const config = useApi(
    async () => unwrap(await api.GET('/configs/{configId}', { params: { path: { configId: props.id } } })),
    [api, props.id],
  );
  const versions = useApi(
    async () =>
      unwrap(
        await api.GET('/configs/{configId}/versions', {
          params: {
            path: { configId: props.id },
            query: { page_size: VERSIONS_PAGE_SIZE, current_page: page },
          },
        }),
      ),
    [api, props.id, page],
  );
  const latest = config.data?.version;
  const [pair, setPair] = useState<{ from: number; to: number } | undefined>();
  useEffect(() => {
    if (latest !== undefined && pair === undefined) setPair({ from: Math.max(1, latest - 1), to: latest });
  }, [latest, pair]);
  const numbers = latest === undefined ? [] : Array.from({ length: latest }, (_, i) => latest - i);

  return (
    <Page
      title={config.data ? `History: ${config.data.name}` : 'History'}
      actions={
        <Link href={`/${props.id}`} role="button" class="secondary outline">
          Back to the editor
        </Link>
      }
    >
      <ErrorBanner error={config.error ?? versions.error} />
      <DataTable
        class="striped"
        busy={versions.loading}
        testId="versions-table"
        columns={['Version', 'Created', 'By']}
        hiddenColumn="Actions"
      >
        {versions.data?.data.map((v) => (
          <tr key={v.version}>
            <td>{v.version}</td>
            <td>{formatTime(v.created_at)}</td>
            <td>
              {v.created_by_user_id ? `user ${v.created_by_user_id}` : null}
              {v.created_by_api_key_id ? `API key ${v.created_by_api_key_id}` : null}
            </td>
            <td>
              {v.version > 1 ? (
                <button
                  type="button"
                  class="secondary outline compact"
                  onClick={() => setPair({ from: v.version - 1, to: v.version })}
                >
                  Compare with {v.version - 1}
                </button>
              ) : null}
            </td>
          </tr>
        ))}
      </DataTable>
      <ListPager
        page={page}
        pageSize={VERSIONS_PAGE_SIZE}
        total={versions.data?.total}
        onPage={setPage}
        label="versions"
      />
      {pair ? (
        <section>
          <h3>Compare versions</h3>
          <div class="grid">
            <FilterSelect
              label="From version"
              value={String(pair.from)}
              options={numbers.map(String)}
              onChange={(from) => setPair({ ...pair, from: Number(from) })}
            />
            <FilterSelect
              label="To version"
              value={String(pair.to)}
              options={numbers.map(String)}
              onChange={(to) => setPair({ ...pair, to: Number(to) })}
            />
          </div>
          <VersionPair configId={props.id} from={pair.from} to={pair.to} />
        </section>
      ) : null}
    </Page>
  );
}

function VersionPair(props: { configId: string; from: number; to: number }) {
  const { api } = useConsole();
  const pair = useApi(async () => {
    const get = async (version: number) =>
      unwrap(
        await api.GET('/configs/{configId}/versions/{version}', {
          params: { path: { configId: props.configId, version } },
        }),
      );
    const [from, to] = await Promise.all([get(props.from), get(props.to)]);
    return { from: configText(from.config), to: configText(to.config) };
  }, [api, props.configId, props.from, props.to]);
  if (pair.error) return <ErrorBanner error={pair.error} />;
  if (!pair.data) return <p aria-busy="true">Loading versions…</p>;
  return (
    <VersionDiff
      before={pair.data.from}
      after={pair.data.to}
      beforeLabel={`version ${props.from}`}
      afterLabel={`version ${props.to}`}
    />
  );
}
