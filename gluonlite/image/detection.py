"""``mx.image.detection`` (also ``mx.image.det``): MXNet 1.9's object-detection data
pipeline.

The augmenters and ``CreateDetAugmenter`` live in ``detection_aug.py``; this module
adds :class:`ImageDetIter`, an :class:`~gluonlite.image.ImageIter` whose labels are
object lists.

Raw label layout (a ``.lst`` line's labels, a RecordIO header's label array or an
``imglist`` item's numbers)::

    A  B  [id xmin ymin xmax ymax extra...]  [id xmin ...]  ...

``A`` is the header width (2 or more: the numbers before the first object), ``B`` the
width of an object (5 or more); the corners are normalized to ``[0, 1]``.  A batch's
label is float32 ``(batch, max objects, B)``; rows past an image's objects are ``-1``.
"""
from __future__ import annotations

import logging

import numpy as np

from .. import ndarray as nd
from .detection_aug import (DetAugmenter, DetBorrowAug, DetRandomSelectAug,  # noqa: F401
                            DetHorizontalFlipAug, DetRandomCropAug, DetRandomPadAug,
                            CreateMultiRandCropAugmenter, CreateDetAugmenter)
from .detection_aug import __all__ as _aug_all
from .image_iter import ImageIter

__all__ = _aug_all + ["ImageDetIter"]

_DEFAULT_MEAN = np.array([123.68, 116.28, 103.53])
_DEFAULT_STD = np.array([58.395, 57.12, 57.375])


def _import_cv2():
    try:
        import cv2
    except ImportError:
        return None
    return cv2


def _draw_box(image: np.ndarray, x1: int, y1: int, x2: int, y2: int, color,
              thickness: int) -> None:
    """Draw a rectangle outline into ``image`` ``(H, W, 3)`` uint8 in place, without
    OpenCV: edges ``thickness // 2`` pixels either side of the corner lines (filled
    for a negative ``thickness``)."""
    height, width = image.shape[:2]
    col = np.clip(np.rint(np.asarray(color, dtype=np.float64)), 0, 255).astype(image.dtype)

    def span(lo, hi, size):
        return slice(min(max(lo, 0), size), min(max(hi + 1, 0), size))

    if thickness < 0:
        image[span(y1, y2, height), span(x1, x2, width)] = col
        return
    r = thickness // 2
    rows, cols = span(y1 - r, y2 + r, height), span(x1 - r, x2 + r, width)
    image[span(y1 - r, y1 + r, height), cols] = col
    image[span(y2 - r, y2 + r, height), cols] = col
    image[rows, span(x1 - r, x1 + r, width)] = col
    image[rows, span(x2 - r, x2 + r, width)] = col


class ImageDetIter(ImageIter):
    """Batches of augmented images with object-detection labels, as MXNet 1.9's.

    The label shape ``(max objects, object width)`` is found at construction by reading
    every label once; ``provide_label`` is ``[(label_name, (batch_size,) + label_shape)]``.
    Images whose label has no valid object (after augmentation: none with an id >= 0
    and a non-empty box) are skipped.

    Parameters
    ----------
    batch_size : int
    data_shape : tuple of int
        ``(3, H, W)``.
    path_imgrec, path_imglist, path_root, path_imgidx, imglist
        The images and raw labels, as in :class:`ImageIter`.
    shuffle : bool, default False
    part_index, num_parts : int, default 0, 1
    aug_list : list of DetAugmenter, optional
        By default ``CreateDetAugmenter(data_shape, **kwargs)``.
    data_name : str, default 'data'
    label_name : str, default 'label'
    last_batch_handle : {'pad', 'discard', 'roll_over'}, default 'pad'
    **kwargs
        Arguments of :func:`CreateDetAugmenter`.
    """

    def __init__(self, batch_size: int, data_shape, path_imgrec: str | None = None,
                 path_imglist: str | None = None, path_root: str | None = None,
                 path_imgidx: str | None = None, shuffle: bool = False, part_index: int = 0,
                 num_parts: int = 1, aug_list: list | None = None,
                 imglist: list | None = None, data_name: str = "data",
                 label_name: str = "label", last_batch_handle: str = "pad", **kwargs):
        super().__init__(batch_size=batch_size, data_shape=data_shape,
                         path_imgrec=path_imgrec, path_imglist=path_imglist,
                         path_root=path_root, path_imgidx=path_imgidx, shuffle=shuffle,
                         part_index=part_index, num_parts=num_parts, aug_list=[],
                         imglist=imglist, data_name=data_name, label_name=label_name,
                         last_batch_handle=last_batch_handle)
        self.auglist = (CreateDetAugmenter(self.data_shape, **kwargs) if aug_list is None
                        else aug_list)
        label_shape = self._estimate_label_shape()
        self.provide_label = [(label_name, (self.batch_size,) + label_shape)]
        self.label_shape = label_shape

    # -- labels ---------------------------------------------------------------------------
    def _parse_label(self, label) -> np.ndarray:
        """The ``(objects, object width)`` array of a raw label, without the objects
        whose box is empty; ``RuntimeError`` for a malformed label or no object left."""
        if isinstance(label, nd.NDArray):
            label = label.asnumpy()
        raw = np.asarray(label).ravel()
        if raw.size < 7:
            raise RuntimeError("Label shape is invalid: " + str(raw.shape))
        header_width, obj_width = int(raw[0]), int(raw[1])
        if obj_width < 5:
            raise RuntimeError(f"Label object width {obj_width} is invalid: at least 5 "
                               "(id, xmin, ymin, xmax, ymax) required.")
        if (raw.size - header_width) % obj_width != 0:
            raise RuntimeError(f"Label shape {raw.shape} inconsistent with annotation "
                               f"width {obj_width}.")
        objects = raw[header_width:].reshape(-1, obj_width)
        valid = (objects[:, 3] > objects[:, 1]) & (objects[:, 4] > objects[:, 2])
        if not valid.any():
            raise RuntimeError("Encounter sample with no valid label.")
        return objects[valid]

    def _check_valid_label(self, label) -> None:
        """``RuntimeError`` unless ``label`` is ``(1+, 5+)`` with at least one object
        of id >= 0 and a non-empty box."""
        if len(label.shape) != 2 or label.shape[1] < 5:
            raise RuntimeError(f"Label with shape (1+, 5+) required, {label} received.")
        valid = (label[:, 0] >= 0) & (label[:, 3] > label[:, 1]) & (label[:, 4] > label[:, 2])
        if not valid.any():
            raise RuntimeError("Invalid label occurs.")

    def _estimate_label_shape(self) -> tuple:
        """``(max objects, object width)`` over all labels (one pass, no decoding)."""
        max_count, width = 0, None
        self.reset()
        try:
            while True:
                label, _ = self.next_sample()
                label = self._parse_label(label)
                max_count = max(max_count, label.shape[0])
                width = label.shape[1]
        except StopIteration:
            pass
        self.reset()
        if width is None:
            raise RuntimeError("ImageDetIter: no image to estimate the label shape from")
        return (max_count, width)

    def check_label_shape(self, label_shape) -> None:
        """``ValueError`` unless ``label_shape`` is ``(count, width)`` with at least
        the current count and the same object width."""
        if len(label_shape) != 2:
            raise ValueError("label_shape should have length 2")
        if label_shape[0] < self.label_shape[0]:
            raise ValueError(f"Attempts to reduce label count from {self.label_shape[0]} "
                             f"to {label_shape[0]}, not allowed.")
        if label_shape[1] != self.provide_label[0][1][2]:
            raise ValueError("label_shape object width inconsistent: "
                             f"{self.provide_label[0][1][2]} vs {label_shape[1]}.")

    def reshape(self, data_shape=None, label_shape=None) -> None:
        """Change the data shape ``(3, H, W)`` and/or the label shape
        ``(count, width)`` (the count may only grow).

        Parameters
        ----------
        data_shape : tuple of int, optional
        label_shape : tuple of int, optional
        """
        if data_shape is not None:
            data_shape = tuple(data_shape)
            self.check_data_shape(data_shape)
            self.provide_data = [(self.provide_data[0][0], (self.batch_size,) + data_shape)]
            self.data_shape = data_shape
        if label_shape is not None:
            label_shape = tuple(label_shape)
            self.check_label_shape(label_shape)
            self.provide_label = [(self.provide_label[0][0],
                                   (self.batch_size,) + label_shape)]
            self.label_shape = label_shape

    def sync_label_shape(self, it: "ImageDetIter", verbose: bool = False) -> "ImageDetIter":
        """Give this iterator and ``it`` the larger of their label counts (e.g. for a
        training and a validation iterator).

        Parameters
        ----------
        it : ImageDetIter
        verbose : bool, default False
            Log the new shape.

        Returns
        -------
        ImageDetIter
            ``it``, reshaped if needed.
        """
        assert isinstance(it, ImageDetIter), "Synchronize with invalid iterator."
        mine, theirs = self.label_shape, it.label_shape
        assert mine[1] == theirs[1], "object width mismatch."
        count = max(mine[0], theirs[0])
        if count > mine[0]:
            self.reshape(None, (count, mine[1]))
        if count > theirs[0]:
            it.reshape(None, (count, theirs[1]))
        if verbose and count > min(mine[0], theirs[0]):
            logging.info("Resized label_shape to (%d, %d).", count, mine[1])
        return it

    # -- batches ------------------------------------------------------------------------------
    def _new_batch(self):
        data, label = super()._new_batch()
        label[:] = -1
        return data, label

    def augmentation_transform(self, data, label):  # pylint: disable=arguments-differ
        """Run ``(data, label)`` through the detection augmenters."""
        for aug in self.auglist:
            data, label = aug(data, label)
        return data, label

    def _read_valid(self):
        """The next ``(decoded image, parsed label)`` that parses; skips the others."""
        while True:
            label, encoded = self.next_sample()
            data = self.imdecode(encoded)
            try:
                self.check_valid_image([data])
                return data, self._parse_label(label)
            except RuntimeError as err:
                logging.debug("Invalid image, skipping:  %s", err)

    def _batchify(self, batch_data, batch_label, start: int = 0) -> int:
        """Fill the batch from position ``start``; labels are padded with ``-1`` rows."""
        i = start
        count, width = batch_label.shape[1:]
        try:
            while i < self.batch_size:
                data, label = self._read_valid()
                try:
                    data, label = self.augmentation_transform(data, label)
                    self._check_valid_label(label)
                except RuntimeError as err:
                    logging.debug("Invalid image, skipping:  %s", err)
                    continue
                if label.shape[0] > count or label.shape[1] != width:
                    raise ValueError(f"ImageDetIter: a label of shape {label.shape} does not "
                                     f"fit the label shape {(count, width)}")
                rows = np.full((count, width), -1, dtype=np.float32)
                rows[:label.shape[0]] = label
                batch_data[i] = self.postprocess_data(data)
                batch_label[i] = rows
                i += 1
        except StopIteration:
            if not i:
                raise
        return i

    # -- display --------------------------------------------------------------------------------
    def draw_next(self, color=None, thickness: int = 2, mean=None, std=None,
                  clip: bool = True, waitKey: int | None = None,
                  window_name: str = "draw_next", id2labels: dict | None = None):
        """Images of the next samples (augmented) with their boxes drawn, as ``(H, W, 3)``
        uint8 NumPy arrays in **BGR** order (OpenCV's), one per image until the end of
        the epoch.

        Boxes are drawn with OpenCV when it is installed, else with NumPy (the same
        boxes; thick edges may differ from OpenCV's by a pixel).  Showing the images
        (``waitKey``) and writing class names (``id2labels``) need OpenCV.

        Parameters
        ----------
        color : tuple of 3 int, optional
            Box colour in RGB; by default random per box (``np.random.rand``).
        thickness : int, default 2
        mean, std : True or numpy.ndarray, optional
            Undo a colour normalization (``True``: ImageNet's statistics).
        clip : bool, default True
            Clip to ``[0, 255]`` before converting to uint8.
        waitKey : int, optional
            Show each image in an OpenCV window for ``waitKey`` ms.
        window_name : str, default 'draw_next'
        id2labels : dict, optional
            Class id to name, written above each box.

        Returns
        -------
        generator of numpy.ndarray

        Raises
        ------
        ImportError
            When ``waitKey`` or ``id2labels`` is given and OpenCV (``cv2``) is missing.
        """
        cv2 = _import_cv2()
        if cv2 is None and (waitKey is not None or id2labels is not None):
            raise ImportError("ImageDetIter.draw_next: showing images (waitKey) and "
                              "writing class names (id2labels) need OpenCV; install "
                              "opencv-python or leave both as None")
        if std is True:
            std = _DEFAULT_STD
        elif std is not None:
            assert isinstance(std, np.ndarray) and std.shape[0] in (1, 3), \
                "std must be True, None or a NumPy array of 1 or 3 values"
        if mean is True:
            mean = _DEFAULT_MEAN
        elif mean is not None:
            assert isinstance(mean, np.ndarray) and mean.shape[0] in (1, 3), \
                "mean must be True, None or a NumPy array of 1 or 3 values"
        bgr = tuple(color[::-1]) if color else None
        return self._draw_images(cv2, bgr, thickness, mean, std, clip, waitKey,
                                 window_name, id2labels)

    def _draw_images(self, cv2, color, thickness, mean, std, clip, wait_key, window_name,
                     id2labels):
        while True:
            try:
                data, label = self._read_valid()
            except StopIteration:
                return
            data, label = self.augmentation_transform(data, label)
            image = data.asnumpy()
            if image.dtype.kind != "f":
                image = image.astype(np.float32)
            if std is not None:
                image *= std
            if mean is not None:
                image += mean
            image = image[:, :, ::-1]  # RGB to BGR
            if clip:
                image = np.maximum(0, np.minimum(255, image))
            image = np.ascontiguousarray(image.astype(np.uint8))
            height, width = image.shape[:2]
            for obj in label:
                x1 = int(obj[1] * width)
                if x1 < 0:
                    continue
                y1, x2, y2 = int(obj[2] * height), int(obj[3] * width), int(obj[4] * height)
                box_color = color if color else tuple(np.random.rand(3) * 255)
                if cv2 is None:
                    _draw_box(image, x1, y1, x2, y2, box_color, thickness)
                    continue
                cv2.rectangle(image, (x1, y1), (x2, y2), box_color, thickness)
                if id2labels is not None and int(obj[0]) in id2labels:
                    text = "{:s}".format(id2labels[int(obj[0])])
                    font = cv2.FONT_HERSHEY_SIMPLEX
                    text_height = cv2.getTextSize(text, font, 0.5, 2)[0][1]
                    cv2.putText(image, text, (x1 + 5, y1 + text_height + 5), font, 0.5,
                                (255, 255, 255), 2)
            if wait_key is not None:
                cv2.imshow(window_name, image)
                cv2.waitKey(wait_key)
            yield image
