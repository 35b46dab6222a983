// The Analytics page's time range: preset buttons (1h, 24h, 7d, 30d) and a custom from/to form.
// A bad custom range is the API's to refuse; its message is shown next to the form.
import { useEffect, useState } from 'preact/hooks';
import type { ApiError } from '../api/client.js';
import { ErrorBanner } from '../components/error-banner.js';
import { fromLocalInput, PRESET_NAMES, type Preset, type Range, toLocalInput } from './analytics-query.js';

export interface AnalyticsRangeProps {
  readonly range: Range;
  /** Start and end the current view covers (a preset's, computed at the last refresh). */
  readonly covered: { start_time: string; end_time: string };
  /** The API's refusal of a custom range (400 naming start_time or end_time). */
  readonly error?: ApiError | Error | undefined;
  onRange(range: Range): void;
}

export function AnalyticsRange(props: AnalyticsRangeProps) {
  const { range, covered } = props;
  const [custom, setCustom] = useState(range.kind === 'custom');
  const [from, setFrom] = useState(toLocalInput(covered.start_time));
  const [to, setTo] = useState(toLocalInput(covered.end_time));
  useEffect(() => setCustom(range.kind === 'custom'), [range.kind]);
  return (
    <div class="analytics-range">
      {/* biome-ignore lint/a11y/useSemanticElements: Pico CSS draws role="group" as one row of joined buttons */}
      <div role="group" aria-label="time range">
        {PRESET_NAMES.map((preset: Preset) => {
          const active = range.kind === 'preset' && range.preset === preset;
          return (
            <button
              key={preset}
              type="button"
              class={active ? '' : 'secondary outline'}
              aria-pressed={active}
              onClick={() => {
                setCustom(false);
                props.onRange({ kind: 'preset', preset });
              }}
            >
              {preset}
            </button>
          );
        })}
        <button
          type="button"
          class={range.kind === 'custom' ? '' : 'secondary outline'}
          aria-pressed={range.kind === 'custom'}
          onClick={() => {
            setFrom(toLocalInput(covered.start_time));
            setTo(toLocalInput(covered.end_time));
            setCustom(true);
          }}
        >
          Custom
        </button>
      </div>
      {custom ? (
        <form
          class="analytics-custom"
          onSubmit={(e) => {
            e.preventDefault();
            const start = fromLocalInput(from);
            const end = fromLocalInput(to);
            // An empty field is passed as typed: the API says what is wrong with it.
            props.onRange({ kind: 'custom', from: start ?? from, to: end ?? to });
          }}
        >
          <label>
            From
            <input
              type="datetime-local"
              name="from"
              value={from}
              required
              onInput={(e) => setFrom((e.currentTarget as HTMLInputElement).value)}
            />
          </label>
          <label>
            To
            <input
              type="datetime-local"
              name="to"
              value={to}
              required
              onInput={(e) => setTo((e.currentTarget as HTMLInputElement).value)}
            />
          </label>
          <button type="submit">Apply</button>
        </form>
      ) : null}
      {range.kind === 'custom' ? <ErrorBanner error={props.error} /> : null}
    </div>
  );
}
