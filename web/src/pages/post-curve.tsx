/**
 * A published post's own curve (GET /posts/{postId}/insights): its engagement and reach at each sample live sync
 * took, drawn with the app's chart and told again in a table.
 */
import { api, call } from '../api.js';
import { Chart } from '../ui/chart.js';
import { Problem } from '../ui/page.js';
import { useApi } from '../ui/use-api.js';

export function PostCurve(props: { postId: string }) {
  const curve = useApi(
    async () => (await call(api.GET('/posts/{postId}/insights', { params: { path: { postId: props.postId } } }))).data,
    [props.postId],
  );
  const samples = curve.data?.samples ?? [];
  if (curve.error) return <Problem error={curve.error} />;
  if (samples.length < 2) return null;
  const xs = samples.map((s) => Date.parse(s.at) / 1000);
  const series = [{ label: 'Engagement', values: samples.map((s) => s.engagement) }];
  if (samples.some((s) => s.reach !== null)) series.push({ label: 'Reach', values: samples.map((s) => s.reach ?? 0) });
  return (
    <section aria-labelledby="curve-title">
      <h2 id="curve-title">Over time</h2>
      <Chart
        label="The post's engagement and reach at each reading; the table below has the same figures."
        xs={xs}
        series={series}
      />
      <details>
        <summary>Readings as a table</summary>
        <table>
          <thead>
            <tr>
              <th scope="col">Read at</th>
              <th scope="col">Engagement</th>
              <th scope="col">Reach</th>
            </tr>
          </thead>
          <tbody>
            {samples.map((s) => (
              <tr key={s.at}>
                <td>{new Date(s.at).toLocaleString()}</td>
                <td>{s.engagement}</td>
                <td>{s.reach ?? '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </section>
  );
}
