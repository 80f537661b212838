/** The web app: who is signed in, then the page the address names, inside the layout. */
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import './app.css';
import { api, call } from './api.js';
import { Layout } from './layout.js';
import { NotFoundPage } from './pages/not-found.js';
import { match, useLocation } from './router.js';
import { MeContext, type Me } from './session.js';

function App() {
  const url = useLocation();
  const [me, setMe] = useState<Me | undefined>(undefined);
  useEffect(() => {
    void call(api.GET('/profile')).then((p) => setMe({ email: p.user.email, userId: p.user.id, manages: p.scopes.includes('manage_team'), reviews: p.canReview }));
  }, []);
  const found = match(url.pathname);
  const Component = found?.component ?? NotFoundPage;
  return (
    <MeContext.Provider value={me}>
      <Layout path={url.pathname}>
        <Component key={url.pathname} params={found?.params ?? {}} query={url.searchParams} />
      </Layout>
    </MeContext.Provider>
  );
}

const root = document.getElementById('app')!;
root.textContent = '';
render(<App />, root);
