// A labelled select of string values (a list's filter, a version to compare): the choice of none
// first when there is one ("All types", "Any status"), then the values, each as itself or its label.
export type FilterOption = string | readonly [value: string, label: string];

export function FilterSelect(props: {
  label: string;
  name?: string;
  value: string;
  /** The empty choice (no filter); omitted: a value must be chosen. */
  anyLabel?: string;
  options: readonly FilterOption[];
  onChange(value: string): void;
}) {
  return (
    <label>
      {props.label}
      <select
        name={props.name}
        value={props.value}
        onChange={(e) => props.onChange((e.target as HTMLSelectElement).value)}
      >
        {props.anyLabel !== undefined ? <option value="">{props.anyLabel}</option> : null}
        {props.options.map((option) => {
          const [value, label] = typeof option === 'string' ? [option, option] : option;
          return (
            <option key={value} value={value}>
              {label}
            </option>
          );
        })}
      </select>
    </label>
  );
}
