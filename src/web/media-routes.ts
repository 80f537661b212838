import express from 'express';
import type { DomainDeps } from '../domain/deps.js';
import { NotFoundError } from '../domain/errors.js';
import { openPublicMedia, receiveUpload, UploadRefusedError } from '../domain/media/media-library.js';

/**
 * Media over plain HTTP: PUT /media/uploads/{id}?expires&sig (the signed upload URL create_media_upload hands out)
 * and GET /media/{id}/{filename} (the public, direct file link networks download). There is no authenticated
 * REST upload endpoint (SPEC); the signature is the upload's capability.
 */
export function mediaRouter(deps: DomainDeps, onError: (message: string, error: unknown) => void): express.Router {
  const router = express.Router();

  router.put('/media/uploads/:uploadId', async (req, res) => {
    const result = await receiveUpload(deps, {
      uploadId: req.params.uploadId,
      expires: String(req.query.expires ?? ''),
      sig: String(req.query.sig ?? ''),
      contentType: req.headers['content-type'],
      body: req,
    });
    res.status(200).json({
      status: true,
      receivedBytes: result.receivedBytes,
      next: 'Call complete_media_upload with this uploadId.',
    });
  });

  router.get('/media/:mediaId/:fileName', async (req, res) => {
    const file = await openPublicMedia(deps, req.params.mediaId, req.params.fileName);
    if (!file) throw new NotFoundError('No such media file.');
    res.status(200).set({
      'content-type': file.mimeType,
      'content-length': String(file.sizeBytes),
      'cache-control': 'public, max-age=31536000, immutable',
      'x-content-type-options': 'nosniff',
      'content-security-policy': "default-src 'none'; sandbox",
    });
    file.stream.on('error', (error) => {
      onError('reading a media file failed', error);
      res.destroy();
    });
    file.stream.pipe(res);
  });

  // A refused PUT may still be streaming its body: answer, then drop the connection rather than read it all.
  const closeRefusedUpload: express.ErrorRequestHandler = (error, req, res, next) => {
    if (error instanceof UploadRefusedError) {
      res.set('connection', 'close');
      req.resume();
    }
    next(error);
  };
  router.use('/media', closeRefusedUpload);
  return router;
}
