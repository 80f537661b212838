/**
 * One file into the media library through the signed upload (the same flow as REST's and the MCP media tools):
 * start it, PUT the bytes to the signed URL with XMLHttpRequest (fetch cannot report upload progress), complete it.
 */
import type { components } from '../../../../sdk/src/index.js';
import { api, ApiError, call } from '../../api.js';

export type Media = components['schemas']['Media'];

export async function uploadFile(file: File, progress: (loaded: number, total: number) => void): Promise<Media> {
  const started = await call(
    api.POST('/media/uploads', {
      body: { fileName: file.name || 'file', contentType: file.type, sizeBytes: file.size },
    }),
  );
  await put(started.data.uploadUrl, started.data.headers, file, progress);
  const done = await call(
    api.POST('/media/uploads/{uploadId}/complete', { params: { path: { uploadId: started.data.uploadId } } }),
  );
  return done.data;
}

function put(
  url: string,
  headers: Record<string, string>,
  file: File,
  progress: (loaded: number, total: number) => void,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('PUT', url);
    for (const [name, value] of Object.entries(headers)) xhr.setRequestHeader(name, value);
    xhr.upload.onprogress = (event) => progress(event.loaded, event.lengthComputable ? event.total : file.size);
    xhr.onload = () => {
      if (xhr.status < 300) {
        progress(file.size, file.size);
        resolve();
        return;
      }
      let message = `the upload was refused (${xhr.status})`;
      try {
        message = (JSON.parse(xhr.responseText) as { message?: string }).message ?? message;
      } catch {
        // Not JSON: the status says enough.
      }
      reject(new ApiError(xhr.status, 'upload_refused', message));
    };
    xhr.onerror = () => reject(new ApiError(0, 'offline', 'the connection broke; add the file again'));
    xhr.send(file);
  });
}
