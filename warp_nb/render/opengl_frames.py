"""The frame side of warp_nb's OpenGLRenderer (opengl.py): Warp's window state (clock, run loop,
tiles), the camera, drawing a frame off screen and reading it back (`get_pixels`, `save`). A
mixin of OpenGLRenderer, which holds the scene; split out so each file stays readable."""

from __future__ import annotations

import time as _time

import numpy as np

from . import _common as C


def _rgb255(c) -> np.ndarray:
    return np.clip(np.round(np.asarray(c, np.float64) * 255.0), 0, 255).astype(np.uint8)


class FrameMixin:
    # --- Warp's state --------------------------------------------------------------------
    @property
    def clock_time(self) -> float:
        """Seconds since the renderer was made (wall clock)."""
        return _time.perf_counter() - self._start

    @property
    def has_exit(self) -> bool:
        return self._exit

    def is_running(self) -> bool:
        return not self._exit

    @property
    def num_tiles(self) -> int:
        return len(self._tiles) if self._tiles else 1

    @property
    def tile_width(self) -> int:
        return self._tiles[0]["size"][0] if self._tiles else self.screen_width

    @property
    def tile_height(self) -> int:
        return self._tiles[0]["size"][1] if self._tiles else self.screen_height

    def register_key_press_callback(self, callback) -> None:
        """Kept for compatibility: there is no keyboard off screen, so it is never called."""
        self._key_callbacks.append(callback)

    def register_input_processor(self, callback) -> None:
        self._input_processors.append(callback)

    def update_view_matrix(self, cam_pos=None, cam_front=None, cam_up=None, stiffness: float = 1.0) -> None:
        """Move the camera (the next frame uses camera_pos, camera_front, camera_up)."""
        if cam_pos is not None:
            self.camera_pos = cam_pos
        if cam_front is not None:
            self.camera_front = cam_front
        if cam_up is not None:
            self.camera_up = cam_up

    def update_projection_matrix(self) -> None:
        """Nothing to do: every frame reads camera_fov, near and far planes and the screen size."""

    # --- frames ---------------------------------------------------------------------------
    def begin_frame(self, t: float | None = None) -> None:
        self.time = self.clock_time if t is None else float(t)

    def end_frame(self) -> None:
        """Draw the frame off screen (unless skip_rendering), keep the picture, update the notebook view."""
        if self._exit:
            return
        if not self.skip_rendering:
            self._draw()
            for callback in self.render_2d_callbacks:
                callback()
            if self.view is not None:
                self.view.update_frame()
        self.frame += 1
        if self.max_frames is not None and self.frame >= self.max_frames:
            self._exit = True

    def update(self) -> None:
        """Draw the current scene again (Warp's window refresh)."""
        self._draw()

    def clear(self) -> None:
        """Remove every shape, instance and tile set-up."""
        for item in self._items.values():
            if item.actor is not None:
                self._plotter.remove_actor(item.actor, render=False)
        self._items.clear()
        self._next_id = 0
        self._tiles = self._tile_instances = None

    def close(self) -> None:
        self._exit = True
        if self._plotter is not None:
            self._plotter.close()
            self._plotter = None

    def save(self, path: str | None = None) -> None:
        """Write the last frame as a PNG to `path` (Warp's save() takes no path and does nothing)."""
        if path is None:
            return
        if self.image is None:
            self._draw()
        from PIL import Image
        Image.fromarray(self.image).save(path)

    # --- drawing ----------------------------------------------------------------------------
    def _camera_arrays(self):
        pos = C.as_vec3(self.camera_pos, "camera_pos")
        front = C.as_vec3(self.camera_front, "camera_front")
        up = C.as_vec3(self.camera_up, "camera_up")
        return pos, front, up

    def _set_camera(self, view_matrix=None) -> None:
        cam = self._plotter.camera
        if view_matrix is not None:  # world -> camera (OpenGL: the camera looks down -Z)
            inv = np.linalg.inv(np.asarray(view_matrix, np.float64).reshape(4, 4))
            pos, front, up = inv[:3, 3], -inv[:3, 2], inv[:3, 1]
        else:
            pos, front, up = self._camera_arrays()
        cam.position = tuple(pos)
        cam.focal_point = tuple(pos + front / (np.linalg.norm(front) or 1.0))
        cam.up = tuple(up)
        cam.view_angle = self.camera_fov
        cam.clipping_range = (self.camera_near_plane, self.camera_far_plane)

    def _snap(self, size, want_depth: bool):
        p = self._plotter
        if tuple(p.window_size) != tuple(size):
            p.window_size = list(size)
        p.render()
        img = p.screenshot(return_img=True)
        depth = None
        if want_depth:
            z = p.get_image_depth(fill_value=np.nan, reset_camera_clipping_range=False)
            depth = np.where(np.isnan(z), self.camera_far_plane, -z).astype(np.float32)
        return np.ascontiguousarray(img[..., :3]), depth

    def _draw(self) -> None:
        if self._plotter is None:
            raise RuntimeError("this OpenGLRenderer is closed")
        t0 = _time.perf_counter()
        want_depth = self._want_depth
        for item in self._items.values():
            if item.actor is not None:
                item.actor.user_matrix = self._model @ item.local
        if not self._tiles:
            self._apply_visibility(None)
            self._set_camera()
            img, depth = self._snap((self.screen_width, self.screen_height), want_depth)
            self.tile_images, self.tile_depths = [img], [depth] if want_depth else []
            self.image, self.depth = img, depth
        else:
            self.tile_images, self.tile_depths = [], []
            canvas = np.zeros((self.screen_height, self.screen_width, 3), np.uint8)
            canvas[:] = _rgb255(self.background_color)
            full_depth = np.full((self.screen_height, self.screen_width), self.camera_far_plane, np.float32)
            for tile in self._tiles:
                self._apply_visibility(tile["instances"])
                self._set_camera(tile["view"])
                img, depth = self._snap(tile["size"], want_depth)
                self.tile_images.append(img)
                if want_depth:
                    self.tile_depths.append(depth)
                x, y = tile["pos"]
                w, h = tile["size"]
                row = self.screen_height - y - h  # tile positions count from the bottom left, as in OpenGL
                r0, r1 = max(row, 0), min(row + h, self.screen_height)
                c0, c1 = max(x, 0), min(x + w, self.screen_width)
                if r1 > r0 and c1 > c0:
                    canvas[r0:r1, c0:c1] = img[r0 - row:r1 - row, c0 - x:c1 - x]
                    if want_depth:
                        full_depth[r0:r1, c0:c1] = depth[r0 - row:r1 - row, c0 - x:c1 - x]
            self.image, self.depth = canvas, (full_depth if want_depth else None)
        self.render_seconds = _time.perf_counter() - t0

    def _apply_visibility(self, instances) -> None:
        for item in self._items.values():
            if item.actor is not None:
                item.actor.visibility = bool(item.visible and (instances is None or item.id in instances))

    # --- tiles and pixels --------------------------------------------------------------------
    def setup_tiled_rendering(self, instances, rescale_window: bool = False, tile_width: int | None = None,
                              tile_height: int | None = None, tile_ncols: int | None = None,
                              tile_nrows: int | None = None, tile_positions=None, tile_sizes=None,
                              projection_matrices=None, view_matrices=None) -> None:
        """Draw several viewports per frame, tile i showing the instances (ids in the order the
        shapes were first rendered) listed in instances[i] (a list of lists, as in Warp). Tiles fill
        the screen in a grid (row-major from the top left) unless tile_positions (x, y from the
        bottom left) and tile_sizes are given; view_matrices (4x4 world -> camera) give a tile its
        own camera."""
        _check_tile_instances(instances)
        n = len(instances)
        ncols = tile_ncols or int(np.ceil(np.sqrt(n)))
        nrows = tile_nrows or int(np.ceil(n / ncols))
        if rescale_window and tile_width and tile_height:
            self.screen_width, self.screen_height = ncols * tile_width, nrows * tile_height
        tw = int(tile_width or self.screen_width // ncols)
        th = int(tile_height or self.screen_height // nrows)
        tiles = []
        for i, ids in enumerate(instances):
            if tile_positions is not None:
                pos = tuple(int(v) for v in tile_positions[i])
            else:
                col, row = i % ncols, i // ncols
                pos = (col * tw, self.screen_height - (row + 1) * th)
            size = tuple(int(v) for v in tile_sizes[i]) if tile_sizes is not None else (tw, th)
            view = None if view_matrices is None else _view_matrix(view_matrices[i])
            tiles.append({"instances": _id_set(ids), "pos": pos, "size": size, "view": view})
        self._tiles = tiles
        self._tile_instances = [list(ids) for ids in instances]
        self._projection_matrices = projection_matrices

    def update_tile(self, tile_id: int, instances=None, projection_matrix=None, view_matrix=None, tile_size=None,
                    tile_position=None) -> None:
        """Change one tile of setup_tiled_rendering: the instances it shows, its camera (a 4x4 view
        matrix), its size or its position (x, y from the bottom left); what is not given stays.
        (projection_matrix is kept, not used: each tile uses the camera's field of view.)"""
        tiles = getattr(self, "_tile_instances", None)
        if tiles is None:
            raise RuntimeError("update_tile() requires setup_tiled_rendering() first")
        if not 0 <= tile_id < len(tiles):
            raise IndexError(f"tile_id {tile_id} is out of bounds for {len(tiles)} tile{'s' if len(tiles) != 1 else ''}")
        tile = self._tiles[tile_id]
        if instances is not None:
            tiles[tile_id] = list(instances)
            tile["instances"] = _id_set(instances)
        if view_matrix is not None:
            tile["view"] = _view_matrix(view_matrix)
        if tile_size is not None:
            tile["size"] = tuple(int(v) for v in tile_size)
        if tile_position is not None:
            tile["pos"] = tuple(int(v) for v in tile_position)
        if projection_matrix is not None:
            tile["projection"] = projection_matrix

    def get_pixels(self, target_image, split_up_tiles: bool = True, mode: str = "rgb", use_uint8: bool = False) -> bool:
        """Copy the last frame into `target_image` (a wp.array or numpy array): mode "rgb" gives
        (..., 3) colours in [0, 1] (0-255 with use_uint8), "depth" (..., 1) linear depth along the
        view direction (far_plane where nothing was drawn). With tiles and split_up_tiles the shape
        is (num_tiles, tile_height, tile_width, channels), else (screen_height, screen_width, channels)."""
        if mode not in ("rgb", "depth"):
            raise ValueError(f"get_pixels mode must be 'rgb' or 'depth', got {mode!r}")
        if split_up_tiles and getattr(self, "_tile_instances", None) is None:  # (as Warp: no tiles to split into)
            raise RuntimeError("get_pixels() requires setup_tiled_rendering() when split_up_tiles=True; pass "
                               "split_up_tiles=False to read the whole screen")
        if mode == "depth" and not (self.tile_depths and self.depth is not None):
            self._want_depth = True
            self._draw()
        elif self.image is None:
            self._draw()
        if mode == "rgb":
            tiles = self.tile_images
            full = self.image
            conv = (lambda a: a) if use_uint8 else (lambda a: a.astype(np.float32) / 255.0)
        else:
            tiles = [d[..., None] for d in self.tile_depths]
            full = self.depth[..., None]
            conv = lambda a: a.astype(np.float32)
        if self._tiles and split_up_tiles:
            sizes = {t.shape for t in tiles}
            if len(sizes) != 1:
                raise ValueError("get_pixels(split_up_tiles=True) needs tiles of one size")
            data = conv(np.stack(tiles))
        else:
            data = conv(full)
        self._copy_into(target_image, data)
        return True

    @staticmethod
    def _copy_into(target, data: np.ndarray) -> None:
        shape = tuple(target.shape)
        if shape != data.shape:
            if int(np.prod(shape)) == data.size and len(shape) == data.ndim + 1 and shape[0] == 1:
                data = data.reshape(shape)
            elif len(shape) == 4 and data.ndim == 3 and shape[0] == 1 and shape[1:] == data.shape:
                data = data[None]
            else:
                raise ValueError(f"get_pixels: the target has shape {shape}, the pixels have shape {data.shape}")
        if isinstance(target, np.ndarray):
            target[...] = data.astype(target.dtype, copy=False)
            return
        if getattr(getattr(target, "device", None), "is_cuda", False):  # through a host copy
            import warp_nb as wp
            host = wp.array(np.ascontiguousarray(data.astype(_np_dtype(target))), dtype=target.dtype, device="cpu")
            wp.copy(target, host)
            return
        view = target.numpy()
        view[...] = data.astype(view.dtype, copy=False)


def _check_tile_instances(instances) -> None:
    """setup_tiled_rendering's `instances`, checked as Warp checks them: a non-empty list of lists."""
    if not isinstance(instances, list):
        raise TypeError(f"instances must be a list of lists, got {type(instances).__name__}")
    if not instances:
        raise ValueError(f"instances must be non-empty, got {instances!r}")
    for i, ids in enumerate(instances):
        if not isinstance(ids, list):
            raise TypeError(f"instances elements must be lists, got {type(ids).__name__} at index {i}")


def _id_set(ids) -> set:
    return {int(j) for j in np.asarray(ids).reshape(-1)}


def _view_matrix(value) -> np.ndarray:
    """A tile's 4x4 world -> camera matrix (flattened column-major, OpenGL's layout, is transposed)."""
    view = np.asarray(C.to_numpy(value), np.float64)
    if view.size == 16:
        view = view.reshape(4, 4)
        if not np.allclose(view[3, :3], 0.0):
            view = view.T
    return view


def _np_dtype(target):
    return np.dtype(np.uint8) if "uint8" in str(getattr(target, "dtype", "")) else np.dtype(np.float32)
