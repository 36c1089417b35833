"""The webgpu allocator's pool, against a fake driver (no GPU needed): freed buffers are reused by
size, a full pool evicts its least recently freed buffers, and every driver buffer is accounted
for (created = destroyed + live + pooled)."""

from __future__ import annotations

import gc

from hypothesis import given, settings
from hypothesis import strategies as st

from webtensor.backends.webgpu.allocator import Allocator, bucket


class FakeDriver:
    limits = {"max-buffer-size": 1 << 30}

    def __init__(self):
        self.created = 0
        self.destroyed: list = []
        self.in_batch: set = set()  # what the open batch uses

    def busy(self, handle):
        return handle in self.in_batch

    def create_buffer(self, size):
        self.created += 1
        return ("buffer", self.created, size)

    def destroy_buffer(self, handle):
        assert handle not in self.destroyed, f"{handle} destroyed twice"
        self.destroyed.append(handle)


def small_pool(pool_bytes: int) -> tuple[Allocator, FakeDriver]:
    driver = FakeDriver()
    memory = Allocator(driver)
    memory.pool_bytes = pool_bytes
    return memory, driver


def free(*buffers) -> None:
    """Free ``buffers`` in this order, as their collection would (the objects stay alive)."""
    for buffer in buffers:
        memory = buffer.owner
        buffer.__del__()
        buffer.owner = None
        memory.collect()


def test_freed_buffers_are_reused_by_size():
    memory, driver = small_pool(1 << 20)
    first = memory.allocate(1000)
    handle = first.handle
    free(first)
    again = memory.allocate(900)  # same 1024-byte bucket
    assert again.handle == handle and driver.created == 1
    other = memory.allocate(5000)  # another bucket: a new buffer
    assert other.handle != handle and driver.created == 2


def test_uploads_take_the_oldest_free_buffer_the_open_batch_does_not_use():
    memory, driver = small_pool(1 << 20)
    a, b = memory.allocate(256), memory.allocate(256)
    free(a, b)  # a is the least recently freed
    assert memory.allocate(256, upload=True).handle == a.handle
    free(memory.allocate(256))  # b again (outputs take the most recent)
    driver.in_batch = {b.handle}
    created = driver.created
    fresh = memory.allocate(256, upload=True)  # b is busy: a write into it would be recorded
    assert fresh.handle != b.handle and driver.created == created + 1
    driver.in_batch = set()
    assert memory.allocate(256, upload=True).handle == b.handle


def test_a_pool_full_of_stale_sizes_still_recycles_the_current_loop():
    # Earlier work filled the pool with buffers of a size the loop no longer uses.
    memory, driver = small_pool(16 * 4096)
    free(*[memory.allocate(4096) for _ in range(16)])
    assert memory.stats()["pooled_bytes"] == 16 * 4096
    created = driver.created
    for _ in range(100):  # a loop allocating and freeing small buffers
        free(memory.allocate(256), memory.allocate(512))
    assert driver.created - created == 2, "the loop's buffers were not recycled"
    # The stale buffers were evicted oldest first, only as many as needed.
    stale = [h for h in driver.destroyed if h[2] == 4096]
    assert [h[1] for h in stale] == [1]
    assert memory.stats()["pooled_bytes"] <= memory.pool_bytes


def test_eviction_is_least_recently_freed_first():
    memory, driver = small_pool(3 * 256)
    a, b, c = (memory.allocate(256) for _ in range(3))
    order = [a.handle, b.handle, c.handle]
    free(b, a, c)  # freed order: b, a, c
    big = memory.allocate(512)
    free(big)  # needs two slots: evicts b then a
    assert driver.destroyed == [order[1], order[0]]
    assert memory.allocate(256).handle == order[2]


def test_a_buffer_larger_than_the_pool_is_destroyed_at_once():
    memory, driver = small_pool(1024)
    kept = memory.allocate(256)
    free(kept)
    huge = memory.allocate(8192)
    free(huge)
    assert driver.destroyed == [huge.handle]
    assert memory.stats()["pooled_buffers"] == 1


def test_empty_pool_destroys_every_pooled_buffer():
    memory, driver = small_pool(1 << 20)
    live = memory.allocate(300)
    free(*[memory.allocate(n) for n in (256, 256, 5000, 70000)])
    memory.empty_pool()
    assert len(driver.destroyed) == 4 and live.handle not in driver.destroyed
    assert memory.stats()["pooled_buffers"] == 0 and memory.stats()["live_buffers"] == 1
    # The allocator keeps working after being emptied.
    free(live)
    assert memory.allocate(300).handle == live.handle


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["output", "upload", "free"]),
                          st.sampled_from([1, 200, 300, 1000, 5000])),
                min_size=20, max_size=80),
       st.integers(256, 8 * 1024))
def test_every_driver_buffer_is_accounted_for(steps, pool_bytes):
    # Outputs take the newest free buffer, uploads the oldest, eviction the oldest of all: the
    # pool's per-size order must stay the freeing order, or a destroyed buffer gets reused.
    memory, driver = small_pool(pool_bytes)
    live = []
    for action, nbytes in steps:
        if action != "free" or not live:
            live.append(memory.allocate(nbytes, upload=action == "upload"))
        else:
            free(live.pop(nbytes % len(live)))
        stats = memory.stats()
        assert stats["pooled_bytes"] <= pool_bytes
        assert stats["live_buffers"] == len(live)
        assert stats["live_bytes"] == sum(bucket(b.nbytes) if b.nbytes > 256 else 256
                                          for b in live)
        assert driver.created == len(driver.destroyed) + len(live) + stats["pooled_buffers"]
        assert {b.handle for b in live}.isdisjoint(driver.destroyed)
    gc.collect()
