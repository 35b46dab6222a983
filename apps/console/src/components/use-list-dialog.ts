// The dialog a list page has open (create, edit, delete a row...), if any: closing it after a change
// reloads the list, so the table shows what the API now holds.
import { useState } from 'preact/hooks';

export function useListDialog<D>(list: { reload(): void }) {
  const [dialog, setDialog] = useState<D | undefined>();
  return {
    dialog,
    open: (next: D) => setDialog(next),
    closed: (changed: boolean) => {
      setDialog(undefined);
      if (changed) list.reload();
    },
  };
}
