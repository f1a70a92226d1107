"""Ordinary numpy programs, written as a numpy user writes them (`import numpy as np`, numpy
calls, ndarray methods, Python control flow, nothing of rt's), for decorating unchanged with
`rt.function`: the corpus of tests/autograph/test_numpy_programs.py (each checked three ways:
numpy on numpy values, the converted function on eager tensors, the graph) and of the
benchmark suite benchmarks/numpy_programs.py.

`PROGRAMS` names each program with the arguments of its benchmark run; `make_args(name)` builds
them (numpy values; Python numbers stay Python).
"""

import numpy as np

# ---- RK4: a damped oscillator y'' = -y - 0.1 y', state (position, velocity) ----------------


def oscillator(y):
    """The derivative of the state (position, velocity)."""
    return np.array([y[1], -y[0] - 0.1 * y[1]])


def rk4(y0, t_end, h):
    """The state at the first step time >= `t_end` (from t = 0, steps of `h`), and that time."""
    t = 0.0
    y = y0
    while t < t_end:
        k1 = oscillator(y)
        k2 = oscillator(y + h / 2 * k1)
        k3 = oscillator(y + h / 2 * k2)
        k4 = oscillator(y + h * k3)
        k = np.array([k1, k2, k3, k4])
        y = y + h / 6 * (k[0] + 2 * k[1] + 2 * k[2] + k[3])
        t = t + h
    return y, t


def rk4_trajectory(y0, steps, h):
    """The states after each of `steps` RK4 steps of `h`, one row each."""
    y = y0
    states = []
    for _ in range(steps):
        k1 = oscillator(y)
        k2 = oscillator(y + h / 2 * k1)
        k3 = oscillator(y + h / 2 * k2)
        k4 = oscillator(y + h * k3)
        y = y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        states.append(y)
    return np.array(states)


# ---- exponential moving average ------------------------------------------------------------


def ema(signal, alpha):
    """The exponential moving average of `signal` (samples along axis 0), one per sample."""
    level = signal[0]
    smoothed = []
    for s in signal:
        level = alpha * s + (1 - alpha) * level
        smoothed.append(level)
    return np.array(smoothed)


# ---- Kalman filter: constant velocity, position measured -----------------------------------


def kalman_step(x, P, z, F, H, Q, R):
    """One predict and update of the state `x` (a column) and its covariance `P` by the
    measurement `z` (one number: the innovation covariance is 1x1)."""
    x = F @ x
    P = F @ P @ F.T + Q
    S = H @ P @ H.T + R
    K = P @ H.T / S
    x = x + K * (z - H @ x)
    P = (np.eye(2) - K @ H) @ P
    return x, P


def kalman_filter(zs, x0, P0, dt, q, r):
    """The filtered positions for the measured positions `zs` (every `dt`; process noise `q`,
    measurement noise `r`) from the state `x0` (a column: position, velocity) with covariance
    `P0`, and the last covariance."""
    F = np.array([[1.0, dt], [0.0, 1.0]])
    H = np.array([[1.0, 0.0]])
    Q = q * np.array([[dt ** 3 / 3, dt ** 2 / 2], [dt ** 2 / 2, dt]])
    R = np.array([[r]])
    x, P = x0, P0
    positions = []
    for z in zs:
        x, P = kalman_step(x, P, z, F, H, Q, R)
        positions.append(x[0, 0])
    return np.array(positions), P


def kalman_filter_inverse(zs, x0, P0, dt, q, r):
    """`kalman_filter` measuring position and velocity (`zs` one row each): the innovation
    covariance is 2x2, so the gain needs its inverse."""
    F = np.array([[1.0, dt], [0.0, 1.0]])
    H = np.eye(2)
    Q = q * np.array([[dt ** 3 / 3, dt ** 2 / 2], [dt ** 2 / 2, dt]])
    R = r * np.eye(2)
    x, P = x0, P0
    positions = []
    for z in zs:
        x = F @ x
        P = F @ P @ F.T + Q
        S = H @ P @ H.T + R
        K = P @ H.T @ np.linalg.inv(S)
        x = x + K @ (z[:, None] - H @ x)
        P = (np.eye(2) - K @ H) @ P
        positions.append(x[0, 0])
    return np.array(positions), P


# ---- Mandelbrot escape counts --------------------------------------------------------------


def mandelbrot(c_re, c_im, max_iter):
    """For each point c of the grid, how many iterations of z = z*z + c keep |z| <= 2 (up to
    `max_iter`); iterates while any point is still bounded."""
    z_re = np.zeros_like(c_re)
    z_im = np.zeros_like(c_im)
    counts = np.zeros_like(c_re, dtype=np.int64)
    bounded = np.ones_like(c_re, dtype=bool)
    n = 0
    while n < max_iter and np.any(bounded):
        z_re, z_im = (np.where(bounded, z_re * z_re - z_im * z_im + c_re, z_re),
                      np.where(bounded, 2 * z_re * z_im + c_im, z_im))
        bounded = bounded & (np.sqrt(z_re ** 2 + z_im ** 2) <= 2.0)
        counts = counts + bounded
        n += 1
    return counts


def mandelbrot_complex(c, max_iter):
    """`mandelbrot` on a complex grid, with np.abs."""
    z = np.zeros_like(c)
    counts = np.zeros_like(c, dtype=np.int64)
    bounded = np.ones_like(c, dtype=bool)
    n = 0
    while n < max_iter and np.any(bounded):
        z = np.where(bounded, z * z + c, z)
        bounded = bounded & (np.abs(z) <= 2.0)
        counts = counts + bounded
        n += 1
    return counts


def mandelbrot_grid(n):
    """The grid of c (real parts, imaginary parts) over [-2, 0.5] x [-1.25, 1.25]."""
    re = np.linspace(-2.0, 0.5, n)
    im = np.linspace(-1.25, 1.25, n)
    return re[None, :] + 0 * im[:, None], im[:, None] + 0 * re[None, :]


# ---- histogram by hand ---------------------------------------------------------------------


def bin_index(x, lo, hi, bins):
    """The bin of each sample of `x` among `bins` equal bins over [lo, hi] (the outside ones
    clipped into the first and last bins)."""
    width = (hi - lo) / bins
    index = np.floor((x - lo) / width).astype(np.int64)
    return np.clip(index, 0, bins - 1)


def histogram(x, lo, hi, bins):
    """The counts of `x` in `bins` equal bins over [lo, hi], and the bin edges."""
    index = bin_index(x, lo, hi, bins)
    counts = []
    for b in range(bins):
        counts.append(np.sum(index == b))
    return np.array(counts), lo + (hi - lo) / bins * np.arange(bins + 1)


def histogram_broadcast(x, lo, hi, bins):
    """The counts of `histogram`, by comparing every sample with every bin at once."""
    index = bin_index(x, lo, hi, bins)
    return np.sum(index[:, None] == np.arange(bins)[None, :], axis=0)


def histogram_bincount(x, lo, hi, bins):
    """The counts of `histogram`, by np.bincount."""
    return np.bincount(bin_index(x, lo, hi, bins), minlength=bins)


# ---- moving-window convolution -------------------------------------------------------------


def moving_window(x, w):
    """The valid part of the convolution of `x` with the window `w`, by sliding the window."""
    k = len(w)
    out = []
    for i in range(len(x) - k + 1):
        out.append(np.sum(x[i:i + k] * w[::-1]))
    return np.array(out)


def moving_window_convolve(x, w):
    """`moving_window` by np.convolve."""
    return np.convolve(x, w, mode="valid")


# ---- root finding: x**3 - x = c ------------------------------------------------------------


def bisection(c, lo, hi, tol):
    """The root of x**3 - x - c in [lo, hi] (a sign change there), to within `tol`."""
    f_lo = lo ** 3 - lo - c
    while hi - lo > tol:
        mid = (lo + hi) / 2
        f_mid = mid ** 3 - mid - c
        if np.sign(f_mid) == np.sign(f_lo):
            lo, f_lo = mid, f_mid
        else:
            hi = mid
    return (lo + hi) / 2


def newton(c, x0, tol, max_iter=50):
    """The root of x**3 - x - c from `x0` by Newton's steps, until a step is below `tol`;
    (root, steps taken)."""
    x = x0
    steps = 0
    for _ in range(max_iter):
        step = (x ** 3 - x - c) / (3 * x ** 2 - 1)
        x = x - step
        steps += 1
        if np.abs(step) < tol:
            break
    return x, steps


# ---- k-means -------------------------------------------------------------------------------


def nearest(points, centers):
    """The index of the nearest of `centers` to each of `points`."""
    distances = np.sum((points[:, None, :] - centers[None, :, :]) ** 2, axis=-1)
    return np.argmin(distances, axis=1)


def kmeans(points, centers, iterations):
    """`iterations` rounds of Lloyd's k-means from `centers`: (centers, label of each point).
    A center with no points keeps its place."""
    for _ in range(iterations):
        labels = nearest(points, centers)
        new_centers = []
        for j in range(len(centers)):
            members = labels == j
            count = np.sum(members)
            total = np.sum(np.where(members[:, None], points, 0.0), axis=0)
            new_centers.append(np.where(count > 0, total / np.maximum(count, 1), centers[j]))
        centers = np.array(new_centers)
    return centers, nearest(points, centers)


def kmeans_norm(points, centers, iterations):
    """`kmeans`, the nearest center found by np.linalg.norm."""
    for _ in range(iterations):
        labels = np.argmin(np.linalg.norm(points[:, None, :] - centers[None, :, :], axis=-1),
                           axis=1)
        new_centers = []
        for j in range(len(centers)):
            members = labels == j
            count = np.sum(members)
            total = np.sum(np.where(members[:, None], points, 0.0), axis=0)
            new_centers.append(np.where(count > 0, total / np.maximum(count, 1), centers[j]))
        centers = np.array(new_centers)
    return centers


# ---- inputs ---------------------------------------------------------------------------------


def noisy_sine(n, seed=0):
    """Two periods of a sine over `n` samples, with normal noise (sigma 0.3)."""
    rng = np.random.default_rng(seed)
    t = np.linspace(0.0, 4 * np.pi, n)
    return np.sin(t) + 0.3 * rng.standard_normal(n)


def three_clusters(n, seed=0):
    """`n` points in the plane around three centers (point i around center i % 3), and the
    first three points as starting centers for k-means."""
    rng = np.random.default_rng(seed)
    means = np.array([[0.0, 0.0], [3.0, 3.0], [0.0, 4.0]])
    points = means[np.arange(n) % 3] + 0.5 * rng.standard_normal((n, 2))
    return points, points[:3].copy()


def complex_grid(n):
    """The grid of `mandelbrot_grid` as complex numbers."""
    re, im = mandelbrot_grid(n)
    return re + 1j * im


# name -> (program, a function of no arguments giving its benchmark arguments). Loop bounds
# and tolerances are numpy scalars, so the graph has a loop: a Python number is a constant of
# the graph, and a Python loop over it is unrolled while tracing (1,000 RK4 steps: 56,000 ops).
PROGRAMS = {
    "rk4": (rk4, lambda: (np.array([1.0, 0.0]), np.float64(10.0), np.float64(0.01))),
    "rk4_trajectory": (rk4_trajectory,
                       lambda: (np.array([1.0, 0.0]), np.int64(1000), np.float64(0.01))),
    "ema": (ema, lambda: (noisy_sine(1000), np.float64(0.1))),
    "kalman_filter": (kalman_filter, lambda: (np.cumsum(noisy_sine(200)), np.zeros((2, 1)),
                                              10.0 * np.eye(2), *np.float64([0.1, 0.01, 0.5]))),
    "kalman_filter_inverse": (kalman_filter_inverse, lambda: (
        np.stack([np.cumsum(noisy_sine(200)), noisy_sine(200, 1)], axis=1), np.zeros((2, 1)),
        10.0 * np.eye(2), *np.float64([0.1, 0.01, 0.5]))),
    "mandelbrot": (mandelbrot, lambda: (*mandelbrot_grid(64), np.int64(50))),
    "mandelbrot_complex": (mandelbrot_complex, lambda: (complex_grid(64), np.int64(50))),
    "histogram": (histogram, lambda: (noisy_sine(10_000), -2.0, 2.0, 16)),
    "histogram_broadcast": (histogram_broadcast, lambda: (noisy_sine(10_000), -2.0, 2.0, 16)),
    "histogram_bincount": (histogram_bincount, lambda: (noisy_sine(10_000), -2.0, 2.0, 16)),
    "moving_window": (moving_window, lambda: (noisy_sine(1000), np.hanning(9))),
    "moving_window_convolve": (moving_window_convolve, lambda: (noisy_sine(1000), np.hanning(9))),
    "bisection": (bisection, lambda: tuple(np.float64([2.0, 0.0, 3.0, 1e-12]))),
    "newton": (newton, lambda: tuple(np.float64([2.0, 2.0, 1e-12]))),
    "kmeans": (kmeans, lambda: (*three_clusters(300), np.int64(10))),
    "kmeans_norm": (kmeans_norm, lambda: (*three_clusters(300), np.int64(10))),
}


def make_args(name):
    """The benchmark arguments of program `name` (numpy values and Python numbers)."""
    return PROGRAMS[name][1]()
