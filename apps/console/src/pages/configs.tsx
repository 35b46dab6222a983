// The Configs page (issue 22): the list of saved configs, a new config, a config's editor and its
// version history with a diff. Mounted with `nest` at /configs, so its own routes are relative.
import { Route, Switch } from 'wouter-preact';
import { ConfigCreate } from './configs-create.js';
import { ConfigEdit } from './configs-edit.js';
import { ConfigHistory } from './configs-history.js';
import { ConfigsList } from './configs-list.js';

export function ConfigsPage() {
  return (
    <Switch>
      <Route path="/" component={ConfigsList} />
      <Route path="/new" component={ConfigCreate} />
      <Route path="/:id/history">{(params) => <ConfigHistory id={params.id} />}</Route>
      <Route path="/:id">{(params) => <ConfigEdit id={params.id} />}</Route>
    </Switch>
  );
}
