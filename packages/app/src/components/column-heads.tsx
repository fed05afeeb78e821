/**
 * A table's head row: one column heading per name, and, where rows carry buttons, a last column
 * named for screen readers only (`actions`).
 */
export function ColumnHeads(props: {
  readonly names: readonly string[];
  readonly actions?: string;
}) {
  return (
    <thead>
      <tr>
        {props.names.map((name) => (
          <th scope="col" key={name}>
            {name}
          </th>
        ))}
        {props.actions !== undefined && (
          <th scope="col">
            <span class="visually-hidden">{props.actions}</span>
          </th>
        )}
      </tr>
    </thead>
  );
}
