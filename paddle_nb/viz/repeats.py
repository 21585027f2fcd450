"""Repeated structure in a block: the residual blocks of a ResNet, the layers of a transformer.

The drawing reads a block as a sequence of *items* (an op, or a node it already folded) and
each item as a token: its kind (op types and roles) and its wiring, the distance back to the
item that wrote each input (``None``: nothing in the sequence wrote it, a parameter or a feed).
A stretch made of N >= 2 consecutive copies of the same L items, wired alike, is a *tandem
repeat* (the word comes from genomics): N residual blocks, N layers, N steps of an unrolled
loop. Names are never compared, so ``conv2d_3.w_0`` and ``conv2d_7.w_0`` do not stop a match.

>>> chain = [("x", ())] + [("mul", (1,)), ("add", (1,)), ("relu", (1,))] * 4
>>> find_repeats(chain)
[(1, 3, 4)]
"""

__all__ = ["find_repeats"]

FAR = "far"
# Two copies of a long stretch are weak evidence: two ResNet stages, each a block and a few
# copies of another, look alike at that length. Past this many items a repeat needs three.
SHORT = 30


def find_repeats(tokens, max_period=100):
    """``[(start, period, count)]``: non-overlapping tandem repeats of ``tokens``, in order.

    ``tokens[i] = (kind, dists)``: ``kind`` any hashable, ``dists`` the distances back to the
    items that wrote item i's inputs (``None`` when nothing before it did). A repeat whose
    copy holds a smaller repeat is left for the next round, after the smaller one is folded
    (two ResNet stages each made of a block and two copies of another block are first "2 x
    block", then, at the next round, a repeat of stages). Of the others, overlapping ones are
    chosen by how many items they save: ``5 x bottleneck`` beats the ``conv2d, batch_norm,
    relu`` pair inside each bottleneck.
    """
    kinds = _intern([kind for kind, _ in tokens])
    dists = [tuple(d) for _, d in tokens]
    found = []
    for period in range(1, min(len(tokens) // 2, max_period) + 1):
        found.extend(_runs(kinds, dists, period))
    simple = list(found)
    simple.sort(key=lambda r: (-(r[1] * r[2] - 1), r[0], r[1]))
    taken, chosen = [False] * len(tokens), []
    for run in simple:
        run = _trim(kinds, dists, run, taken)
        if run is not None:
            start, period, count = run
            for i in range(start, start + period * count):
                taken[i] = True
            chosen.append(run)
    return sorted(chosen)


def _trim(kinds, dists, run, taken):
    """``run``, or the copies of it left in its longest stretch of items not yet taken (a
    pair of ``conv2d, batch_norm, relu`` stays a repeat when the ``relu`` before it went
    into the repeat of the blocks before), or None when fewer than two copies are left."""
    start, period, count = run
    best, lo = (0, start), start
    for i in range(start, start + period * count + 1):
        if i == start + period * count or taken[i]:
            best = max(best, (i - lo, lo))
            lo = i + 1
    length, lo = best
    if length == period * count:
        return run
    if length < 2 * period:
        return None
    return _align(kinds, dists, lo, lo + length, period, floor=lo)


def _holds(run, other):
    """Whether one copy of ``run`` holds all of the (shorter-period) repeat ``other``."""
    start, period, count = run
    o_start, o_period, o_count = other
    if o_period >= period:
        return False
    copy = (o_start - start) // period
    return 0 <= copy < count and o_start + o_period * o_count <= start + (copy + 1) * period


def _intern(kinds):
    """Small integers for kinds, so that the inner loop compares ints."""
    ids = {}
    return [ids.setdefault(k, len(ids)) for k in kinds]


def _runs(kinds, dists, period):
    """The maximal stretches that repeat with this period, aligned to whole copies."""
    n, runs, matched = len(kinds), [], 0
    for i in range(n - period + 1):
        if i < n - period and _same(kinds, dists, i, i + period, period):
            matched += 1
            continue
        if matched >= period:                 # items i-matched .. i+period-1 are periodic
            runs.append(_align(kinds, dists, i - matched, i + period, period))
        matched = 0
    # A repeat must save a node or two: "2 x fill_constant" says less than the two ops.
    return [r for r in runs if r[2] >= (2 if period <= SHORT else 3) and r[1] * r[2] >= 3]


def _same(kinds, dists, i, j, period):
    """Items i and j are the same op types and read from the same places, seen from a copy:
    an input from within one period back must come from the same distance; from further
    back (or from outside the block's ops) it is "outside the copy" for both."""
    if kinds[i] != kinds[j]:
        return False
    a, b = dists[i], dists[j]
    return a == b or [_clamp(d, period) for d in a] == [_clamp(d, period) for d in b]


def _clamp(d, period):
    return FAR if d is None or d > period else d


def _align(kinds, dists, lo, hi, period, floor=0):
    """Where the copies start in the periodic stretch ``[lo, hi)``: ``(start, period, count)``.

    The first copy often reads its input from further away than the others (the feed, not
    the previous layer), so the comparison finds the stretch an item late; and a copy can be
    cut anywhere in a cycle (``add, relu, mul``). Starts up to a period either side are
    tried (before ``lo`` only where the first copy is wired like the second); the one whose
    copies are most closed wins: fewest items outside a copy it reads from, on average (a
    residual block reads only the block before it; cut mid-block, it also reads the middle
    of that block), then the most copies, then the latest start.
    """
    starts = [s for s in range(max(floor, lo - period + 1), lo)
              if _alike(kinds, dists, s, s + period, period)]
    starts += [s for s in range(lo, lo + period) if hi - s >= 2 * period]

    def score(s):
        count = (hi - s) // period
        return _sources(dists, s, period, min(count, 3)) / min(count, 3), -count, -s
    start = min(starts, key=score)
    return start, period, (hi - start) // period


def _alike(kinds, dists, a, b, period):
    """Copies starting at a and b are wired alike, seen from inside each copy."""
    for o in range(period):
        i, j = a + o, b + o
        if j >= len(kinds) or kinds[i] != kinds[j] or \
                [_inside(d, o) for d in dists[i]] != [_inside(d, o) for d in dists[j]]:
            return False
    return True


def _inside(d, offset):
    return d if d is not None and d <= offset else FAR


def _sources(dists, start, period, count):
    """How many items outside its copy each copy reads from, summed over ``count`` copies."""
    total = 0
    for begin in range(start, start + period * count, period):
        total += len({i - d for i in range(begin, begin + period) for d in dists[i]
                      if d is not None and d > i - begin})
    return total
