// Display formats shared by the pages (numbers, money, times, durations).
const integer = new Intl.NumberFormat('en', { maximumFractionDigits: 0 });

export function formatNumber(value: number | null | undefined): string {
  return value === null || value === undefined ? '–' : integer.format(value);
}

/** Cost in the API's unit (USD). */
export function formatUsd(dollars: number | null | undefined): string {
  if (dollars === null || dollars === undefined) return '–';
  return `$${dollars.toFixed(dollars !== 0 && Math.abs(dollars) < 0.01 ? 6 : 4)}`;
}

export function formatTime(iso: string | null | undefined): string {
  if (!iso) return '–';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString('en-GB', { hour12: false });
}

export function formatMs(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return '–';
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(2)} s`;
}

/** Metadata of string values as `key=value, …` ('–' when there is none). */
export function formatMetadata(metadata: Readonly<Record<string, string>>): string {
  return (
    Object.entries(metadata)
      .map(([k, v]) => `${k}=${v}`)
      .join(', ') || '–'
  );
}
