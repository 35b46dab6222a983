// A page's frame: its title, optional actions on the right, and its content.
import type { ComponentChildren } from 'preact';

export function Page(props: { title: string; actions?: ComponentChildren; children: ComponentChildren }) {
  return (
    <section class="page">
      <header class="page-header">
        <h2>{props.title}</h2>
        <div class="page-actions">{props.actions}</div>
      </header>
      {props.children}
    </section>
  );
}
