/**
 * The post's media: files dropped on the zone or chosen (each uploaded with a progress bar, a refusal shown on its
 * line), or picked from the media library in a dialog; each image with its alt text where a chosen network takes
 * alt text, and where one takes none, a word saying so beside the field instead. Everything works from the
 * keyboard: the file chooser is a labelled input, the library a native modal dialog.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, call, toApiError } from '../../api.js';
import { uploadFile, type Media } from './upload.js';
import { Empty, Loading, Problem } from '../../ui/page.js';

export interface ChosenMedia {
  media: Media;
  altText: string;
  /** A file the post links to that is not in this workspace's library (a post made through the API with URLs). */
  external?: boolean;
}

interface Upload {
  key: number;
  name: string;
  loaded: number;
  total: number;
  error?: string;
}

let uploads = 0;

/** Whether the chosen networks take alt text (any of them, or none chosen yet), and the names of those that do not. */
export interface AltTextTaken {
  offered: boolean;
  without: string[];
}

function words(names: string[]): string {
  return names.length < 2 ? names.join('') : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
}

/** What happens to alt text on networks without it, in people's words; empty when every chosen network takes it. */
function altTextNote(taken: AltTextTaken): string {
  if (taken.without.length === 0) return '';
  const verb = taken.without.length === 1 ? 'takes' : 'take';
  return taken.offered
    ? `${words(taken.without)} ${verb} no alt text: the image goes there without it.`
    : `${words(taken.without)} ${verb} no alt text, so there is none to write: the image goes there without a ` +
        'description.';
}

export function MediaField(props: {
  chosen: ChosenMedia[];
  onChange: (update: (chosen: ChosenMedia[]) => ChosenMedia[]) => void;
  problems: string[];
  altText: AltTextTaken;
}) {
  const note = altTextNote(props.altText);
  const [pending, setPending] = useState<Upload[]>([]);
  const [over, setOver] = useState(false);
  const dialog = useRef<HTMLDialogElement>(null);
  const [libraryOpen, setLibraryOpen] = useState(false);

  async function upload(file: File) {
    const key = ++uploads;
    const track = (change: Partial<Upload>) =>
      setPending((all) => all.map((u) => (u.key === key ? { ...u, ...change } : u)));
    setPending((all) => [...all, { key, name: file.name, loaded: 0, total: file.size || 1 }]);
    try {
      const media = await uploadFile(file, (loaded, total) => track({ loaded, total: total || 1 }));
      setPending((all) => all.filter((u) => u.key !== key));
      props.onChange((chosen) => [...chosen, { media, altText: '' }]);
    } catch (error) {
      track({ error: toApiError(error).message });
    }
  }

  const addFiles = (files: FileList | null | undefined) => {
    for (const file of Array.from(files ?? [])) void upload(file);
  };

  const openLibrary = () => {
    setLibraryOpen(true);
    dialog.current?.showModal();
  };

  return (
    <fieldset class="media-field">
      <legend>Media</legend>
      <div
        id="media-drop"
        class={over ? 'drop over' : 'drop'}
        onDragOver={(event) => {
          event.preventDefault();
          setOver(true);
        }}
        onDragLeave={() => setOver(false)}
        onDrop={(event) => {
          event.preventDefault();
          setOver(false);
          addFiles(event.dataTransfer?.files);
        }}
      >
        <p>Drop images or videos here, or</p>
        <input
          id="media-file"
          class="file-input"
          type="file"
          accept="image/*,video/*"
          multiple
          onChange={(event) => {
            addFiles(event.currentTarget.files);
            event.currentTarget.value = '';
          }}
        />
        <label for="media-file" class="button">
          Choose files to upload
        </label>
        <button type="button" id="open-library" onClick={openLibrary}>
          Choose from the media library
        </button>
      </div>
      {pending.length > 0 && (
        <ul class="uploads" aria-label="Uploads">
          {pending.map((u) =>
            u.error ? (
              <li key={u.key} class="problem" role="alert">
                {u.name}: {u.error}{' '}
                <button type="button" onClick={() => setPending((all) => all.filter((x) => x.key !== u.key))}>
                  Dismiss
                </button>
              </li>
            ) : (
              <li key={u.key}>
                {u.name} <progress max={u.total} value={u.loaded} aria-label={`Uploading ${u.name}`} />
              </li>
            ),
          )}
        </ul>
      )}
      {props.chosen.length > 0 && (
        <ol id="media-list" class="media-list">
          {props.chosen.map((item, index) => (
            <li key={item.media.id} data-media-id={item.media.id}>
              {item.media.kind === 'image' ? (
                <img src={item.media.url} alt="" class="thumb" width={80} height={80} />
              ) : (
                <span class="thumb video-thumb" aria-hidden="true">
                  video
                </span>
              )}
              <div class="media-detail">
                <span>{item.media.fileName}</span>
                {item.media.kind === 'image' && (props.altText.offered || item.altText !== '') && (
                  <>
                    <label for={`alt-${item.media.id}`}>
                      Alt text for {item.media.fileName} (what it shows, for people who cannot see it)
                    </label>
                    <input
                      id={`alt-${item.media.id}`}
                      class="alt-text"
                      maxLength={1500}
                      value={item.altText}
                      aria-describedby={note ? `alt-note-${item.media.id}` : undefined}
                      onInput={(event) => {
                        const altText = event.currentTarget.value;
                        props.onChange((chosen) => chosen.map((c, i) => (i === index ? { ...c, altText } : c)));
                      }}
                    />
                  </>
                )}
                {item.media.kind === 'image' && note && (
                  <p id={`alt-note-${item.media.id}`} class="muted alt-note">
                    {note}
                  </p>
                )}
                <button type="button" onClick={() => props.onChange((chosen) => chosen.filter((_, i) => i !== index))}>
                  Remove {item.media.fileName}
                </button>
              </div>
            </li>
          ))}
        </ol>
      )}
      {props.problems.map((message) => (
        <p class="problem" role="alert" key={message}>
          {message}
        </p>
      ))}
      <dialog ref={dialog} class="library" aria-labelledby="library-title" onClose={() => setLibraryOpen(false)}>
        {libraryOpen && (
          <LibraryPicker
            taken={new Set(props.chosen.map((c) => c.media.id))}
            onPick={(picked) => {
              props.onChange((chosen) => [...chosen, ...picked.map((media) => ({ media, altText: '' }))]);
              dialog.current?.close();
            }}
            onCancel={() => dialog.current?.close()}
          />
        )}
      </dialog>
    </fieldset>
  );
}

/** The library a page at a time (GET /media, newest first); ticked files are added in the order they were ticked. */
function LibraryPicker(props: { taken: Set<string>; onPick: (media: Media[]) => void; onCancel: () => void }) {
  const [items, setItems] = useState<Media[] | undefined>(undefined);
  const [cursor, setCursor] = useState<string | null>(null);
  const [error, setError] = useState<string | undefined>(undefined);
  const [ticked, setTicked] = useState<Media[]>([]);

  async function more(after: string | null) {
    try {
      const page = await call(
        api.GET('/media', { params: { query: after ? { limit: 24, cursor: after } : { limit: 24 } } }),
      );
      setItems((old) => [...(old ?? []), ...page.data]);
      setCursor(page.paging.hasMore ? page.paging.nextCursor : null);
    } catch (caught) {
      setError(toApiError(caught).message);
    }
  }
  useEffect(() => {
    void more(null);
  }, []);

  const toggle = (media: Media, on: boolean) =>
    setTicked((all) => (on ? [...all, media] : all.filter((m) => m.id !== media.id)));
  return (
    <form
      method="dialog"
      onSubmit={(event) => {
        event.preventDefault();
        props.onPick(ticked);
      }}
    >
      <h2 id="library-title">The media library</h2>
      <Problem error={error} />
      {!items && !error && <Loading label="Loading the library" rows={2} />}
      {items && items.length === 0 && (
        <Empty>
          The library is empty. Close this, then drop a file or choose one to upload: it lands here for the next post
          too.
        </Empty>
      )}
      {items && items.length > 0 && (
        <ul class="library-items">
          {items.map((media) => (
            <li key={media.id}>
              <label class="library-item">
                <input
                  type="checkbox"
                  name="library"
                  value={media.id}
                  disabled={props.taken.has(media.id)}
                  checked={props.taken.has(media.id) || ticked.some((m) => m.id === media.id)}
                  onChange={(event) => toggle(media, event.currentTarget.checked)}
                />
                {media.kind === 'image' ? (
                  <img src={media.url} alt="" class="thumb" width={64} height={64} />
                ) : (
                  <span class="thumb video-thumb" aria-hidden="true">
                    video
                  </span>
                )}
                <span>
                  {media.fileName}{' '}
                  <small class="muted">
                    {media.contentType}, {Math.max(1, Math.round(media.sizeBytes / 1024))} KB
                    {props.taken.has(media.id) ? ', already in the post' : ''}
                  </small>
                </span>
              </label>
            </li>
          ))}
        </ul>
      )}
      {cursor && (
        <p>
          <button type="button" onClick={() => void more(cursor)}>
            Show older files
          </button>
        </p>
      )}
      <p class="dialog-actions">
        <button type="submit" class="primary" disabled={ticked.length === 0}>
          {ticked.length > 0 ? `Add ${ticked.length} to the post` : 'Add to the post'}
        </button>
        <button type="button" onClick={props.onCancel}>
          Close
        </button>
      </p>
    </form>
  );
}
