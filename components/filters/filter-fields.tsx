// The fields a filter form is made of, labelled and styled once. Each is filled from the
// address (defaultValue); FilterForm remounts them when the address changes.
const labelClass = "block text-sm font-medium text-slate-800";
const fieldClass = "mt-1 rounded-md border border-slate-300 bg-white px-3 py-1.5 text-sm shadow-xs";

type FieldProps = {
  id: string;
  name: string;
  label: string;
  value: string | undefined;
  /** The control's width class. */
  width?: string;
};

export function FilterSelect({
  id,
  name,
  label,
  value,
  width = "w-48",
  any,
  options,
}: FieldProps & { any: string; options: readonly { value: string; label: string }[] }) {
  return (
    <div>
      <label htmlFor={id} className={labelClass}>
        {label}
      </label>
      <select id={id} name={name} defaultValue={value ?? ""} className={`${fieldClass} ${width}`}>
        <option value="">{any}</option>
        {options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
    </div>
  );
}

export function FilterText({
  id,
  name,
  label,
  value,
  width = "w-48",
  placeholder,
  search = false,
}: FieldProps & {
  placeholder?: string;
  /** The field `/` goes to (components/keyboard). */
  search?: boolean;
}) {
  return (
    <div>
      <label htmlFor={id} className={labelClass}>
        {label}
      </label>
      <input
        id={id}
        name={name}
        defaultValue={value ?? ""}
        placeholder={placeholder}
        data-kb-search={search ? "" : undefined}
        className={`${fieldClass} ${width}`}
      />
    </div>
  );
}

export function FilterSubmit() {
  return (
    <button
      type="submit"
      className="rounded-md bg-slate-900 px-3 py-1.5 text-sm font-medium text-white hover:bg-slate-700"
    >
      Filter
    </button>
  );
}
