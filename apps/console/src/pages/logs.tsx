// The Logs page (issue 22): the request log list with its filters at /console/logs, and one
// request's detail at /console/logs/<id> (this route is mounted with `nest` in app.tsx).
import { Route, Switch } from 'wouter-preact';
import { LogDetailView } from './logs-detail.js';
import { LogsList } from './logs-list.js';

export function LogsPage() {
  return (
    <Switch>
      <Route path="/:id">{(params: { id: string }) => <LogDetailView id={params.id} />}</Route>
      <Route>
        <LogsList />
      </Route>
    </Switch>
  );
}
