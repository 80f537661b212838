/** The web app: who is signed in, then the page the address names, inside the layout. */
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import './app.css';
import { api, call, toApiError, type ApiError } from './api.js';
import { Layout } from './layout.js';
import { NotFoundPage } from './pages/not-found.js';
import { match, useLocation } from './router.js';
import { MeContext, type Me } from './session.js';
import { Page, Problem } from './ui/page.js';

function App() {
  const url = useLocation();
  const [me, setMe] = useState<Me | undefined>(undefined);
  const [unknown, setUnknown] = useState<ApiError | undefined>(undefined);
  useEffect(() => {
    call(api.GET('/profile'))
      .then((p) =>
        setMe({
          email: p.user.email,
          userId: p.user.id,
          manages: p.scopes.includes('manage_team'),
          reviews: p.canReview,
        }),
      )
      .catch((caught) => setUnknown(toApiError(caught)));
  }, []);
  const found = match(url.pathname);
  const Component = found?.component ?? NotFoundPage;
  return (
    <MeContext.Provider value={me}>
      <Layout path={url.pathname}>
        {unknown ? (
          // Without knowing who is signed in, pages that depend on it would wait for good: say why instead.
          <Page title="Herald could not say who you are">
            <Problem error={unknown} />
            <p>Reload the page to try again.</p>
          </Page>
        ) : (
          <Component key={url.pathname} params={found?.params ?? {}} query={url.searchParams} />
        )}
      </Layout>
    </MeContext.Provider>
  );
}

const root = document.getElementById('app')!;
root.textContent = '';
render(<App />, root);
