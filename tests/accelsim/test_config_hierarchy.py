"""Memory levels in the hardware description: `[[memory]]` / `[[link]]` / `[hierarchy]`,
the two-level presets as the derived case, validation naming key, value and range."""

import dataclasses

import pytest

from accelsim.config import (
    HardwareConfig,
    LinkConfig,
    MemoryLevel,
    config_from_dict,
    load_config,
    preset_names,
)
from accelsim.errors import ConfigError

FOUR = """
name = "four"
[dram]
channels = 1
bandwidth_bytes_per_cycle = 8
[[memory]]
name = "dram"
space = 0
[[memory]]
name = "acc"
space = 3
parent = "spad"
capacity_kib = 2
read_bytes_per_cycle = 256
write_bytes_per_cycle = 256
latency_cycles = 0
[[memory]]
name = "glb"
space = 1
parent = "dram"
capacity_kib = 1024
[[memory]]
name = "spad"
space = 2
parent = "glb"
capacity_kib = 64
ports = 2
[[link]]
src = "glb"
dst = "spad"
engines = 3
setup_cycles = 4
[dma]
engines = 1
[spaces]
tag = 9
"""


def four(tmp_path, text=FOUR):
    p = tmp_path / "four.toml"
    p.write_text(text)
    return load_config(str(p))


def test_two_level_presets_are_the_derived_case():
    for name in ("default", "edge", "server"):
        cfg = load_config(name)
        dram, sram = cfg.memory_chain()
        assert cfg.single_link
        assert (dram.name, dram.space, dram.parent) == ("dram", cfg.spaces.dram, None)
        assert (sram.name, sram.space, sram.parent) == ("sram", cfg.spaces.sram, "dram")
        assert sram.capacity_bytes == cfg.sram.capacity_bytes
        assert sram.read_peak == sram.write_peak == cfg.sram.bytes_per_cycle
        assert dram.ports == cfg.dram.channels and dram.latency_cycles == cfg.dram.latency_cycles
        assert dram.read_pj_per_byte == cfg.energy.dram_pj_per_byte
        (link,) = cfg.links()
        assert (link.src, link.dst) == ("dram", "sram") and link.dma == cfg.dma
        assert "memory" not in cfg.to_dict() and "link" not in cfg.to_dict()
    # the hash of a two-level config is what it was before levels existed
    assert load_config("default").hash() == HardwareConfig().hash()


def test_three_level_preset():
    assert "three_level" in preset_names()
    cfg = load_config("three_level")
    names = [lv.name for lv in cfg.memory_chain()]
    assert names == ["dram", "glb", "spad"] and not cfg.single_link
    dram, glb, spad = cfg.memory_chain()
    assert [lv.parent for lv in cfg.memory_chain()] == [None, "dram", "glb"]
    assert glb.capacity_bytes > spad.capacity_bytes
    assert [(lk.src, lk.dst) for lk in cfg.links()] == [("dram", "glb"), ("glb", "spad")]
    # the legacy views: [sram] and spaces.sram are the level beside the compute unit
    assert cfg.sram.capacity_bytes == spad.capacity_bytes and cfg.spaces.sram == spad.space
    assert cfg.spaces.dram == dram.space == 0
    # the root's timing is [dram]'s
    assert dram.read_bytes_per_cycle == cfg.dram.bandwidth_bytes_per_cycle
    assert dram.ports == cfg.dram.channels


def test_four_levels_in_file_order_become_a_chain(tmp_path):
    cfg = four(tmp_path)
    assert [lv.name for lv in cfg.memory_chain()] == ["dram", "glb", "spad", "acc"]
    links = cfg.links()
    assert [lk.name for lk in links] == ["dram->glb", "glb->spad", "spad->acc"]
    assert links[1].engines == 3 and links[1].setup_cycles == 4   # its [[link]]
    assert links[0].engines == links[2].engines == 1               # [dma]'s figures
    # energies default from [energy]: the root DRAM's, the others SRAM's
    assert cfg.memory_chain()[0].read_pj_per_byte == cfg.energy.dram_pj_per_byte
    assert cfg.memory_chain()[3].write_pj_per_byte == cfg.energy.sram_pj_per_byte
    assert cfg.sram.capacity_kib == 2 and cfg.spaces.sram == 3 and cfg.spaces.tag == 9


def test_round_trip_and_overrides(tmp_path):
    cfg = four(tmp_path)
    again = config_from_dict(cfg.to_dict(), name=cfg.name)
    assert again == cfg and again.hash() == cfg.hash()
    assert again.memory_chain() == cfg.memory_chain() and again.links() == cfg.links()
    big = cfg.with_overrides({"memory.glb.capacity_kib": 2048, "link.acc.engines": 4,
                              "dma.setup_cycles": 30})
    assert big.memory_chain()[1].capacity_kib == 2048 and big.hash() != cfg.hash()
    assert big.links()[2].engines == 4
    assert big.links()[0].setup_cycles == 30       # a link without a table follows [dma]
    assert big.links()[1].setup_cycles == 4        # a [[link]] table keeps its own
    assert cfg.memory_chain()[1].capacity_kib == 1024


def test_routes_between_levels(tmp_path):
    cfg = four(tmp_path)
    assert [lk.name for lk in cfg.route(1, 2)] == ["glb->spad"]
    assert [lk.name for lk in cfg.route(2, 1)] == ["glb->spad"]
    assert cfg.route(2, 2) == ()
    with pytest.raises(ConfigError, match=r"a DMA from dram \(space 0\) to acc \(space 3\) "
                                          r"crosses 3 links \(dram->glb, glb->spad, spad->acc\)"):
        cfg.route(0, 3)
    routed = cfg.with_overrides({"hierarchy.non_adjacent": "route"})
    assert [lk.name for lk in routed.route(3, 0)] == ["spad->acc", "glb->spad", "dram->glb"]
    with pytest.raises(ConfigError, match="memory space 7 is no memory level"):
        routed.route(7, 0)


LEVEL = '[[memory]]\nname = "dram"\nspace = 0\n'


@pytest.mark.parametrize("text,message", [
    (LEVEL + '[[memory]]\nname = "glb"\nspace = 1\nparent = "dram"\ncapacity_kib = 0\n',
     "memory.glb.capacity_kib = 0: must be an integer in [1, 4294967296]"),
    (LEVEL + '[[memory]]\nname = "glb"\nspace = 1\nparent = "dram"\nports = 100\n',
     "memory.glb.ports = 100: must be an integer in [1, 64]"),
    (LEVEL + '[[memory]]\nname = "glb"\nspace = 1\nparent = "dram"\nread_pj_per_byte = -1\n',
     "memory.glb.read_pj_per_byte = -1: must be a number in [0, 1000000]"),
    (LEVEL + '[[memory]]\nname = "glb"\nspace = 1\nparent = "dram"\nwidth = 3\n',
     "memory.glb.width = 3: unknown key (known in [memory]: name, space, parent, capacity_kib"),
    (LEVEL + '[[memory]]\nspace = 1\nparent = "dram"\n', "memory[1]: missing key 'name'"),
    (LEVEL + '[[memory]]\nname = "glb"\nspace = 0\nparent = "dram"\n',
     "memory.glb.space = 0: level 'dram' already has this memory space"),
    (LEVEL + '[[memory]]\nname = "glb"\nspace = 1\nparent = "l3"\n',
     "memory.glb.parent = 'l3': no level has that name (levels: dram, glb)"),
    (LEVEL + '[[memory]]\nname = "glb"\nspace = 1\n',
     "memory: 2 levels without a parent (dram, glb): exactly one, the DRAM root, has none"),
    (LEVEL, "memory = 1 level: a hierarchy needs at least two [[memory]] levels"),
    (LEVEL + '[[memory]]\nname = "a"\nspace = 1\nparent = "dram"\n'
     '[[memory]]\nname = "b"\nspace = 3\nparent = "dram"\n',
     "memory.b.parent = 'dram': 'a' is already its child; the levels form one chain"),
    (LEVEL + 'ports = 4\n[[memory]]\nname = "a"\nspace = 1\nparent = "dram"\n',
     "memory.dram.ports = 4: the root level's timing is the [dram] section"),
    (LEVEL + '[[memory]]\nname = "a"\nspace = 1\nparent = "dram"\n[[memory]]\nname = "b"\n'
     'space = 3\nparent = "a"\n[[link]]\nsrc = "dram"\ndst = "b"\n',
     "link dram->b: 'b' is not a child of 'dram' (its parent is 'a'); a link joins a level"),
    (LEVEL + '[[memory]]\nname = "a"\nspace = 1\nparent = "dram"\n[[link]]\nsrc = "dram"\n'
     'dst = "a"\nengines = 0\n', "link.a.engines = 0: must be an integer in [1, 64]"),
    (LEVEL + '[[memory]]\nname = "a"\nspace = 2\nparent = "dram"\n',
     "spaces.tag = 2: the tag space must differ from every memory level's space (dram 0, a 2)"),
    (LEVEL + '[[memory]]\nname = "a"\nspace = 1\nparent = "dram"\n[sram]\ncapacity_kib = 8\n',
     "sram: a config with [[memory]] levels has no [sram] section"),
    (LEVEL + '[[memory]]\nname = "a"\nspace = 3\nparent = "dram"\n[spaces]\nsram = 1\n',
     "spaces.sram = 1: with [[memory]] levels it is the space of level 'a' (3)"),
    ('[[link]]\nsrc = "dram"\ndst = "sram"\n', "link.sram: [[link]] tables need [[memory]] levels"),
    (LEVEL + '[[memory]]\nname = "a"\nspace = 1\nparent = "dram"\n[hierarchy]\nnon_adjacent = "hop"\n',
     "hierarchy.non_adjacent = 'hop': must be one of 'refuse', 'route'"),
    ('memory = 3\n', "memory = 3: must be an array of tables [[memory]]"),
])
def test_level_validation_names_key_value_and_range(tmp_path, text, message):
    p = tmp_path / "bad.toml"
    p.write_text(text)
    with pytest.raises(ConfigError) as err:
        load_config(str(p))
    assert str(err.value).startswith(message), str(err.value)


@pytest.mark.parametrize("key,value,message", [
    ("memory.glb.capacity_kib", 0, "memory.glb.capacity_kib = 0: must be an integer in"),
    ("memory.l9.capacity_kib", 8,
     "memory.l9.capacity_kib = 8: no memory level 'l9' (levels: dram, glb, spad)"),
    ("memory.dram.latency_cycles", 8,
     "memory.dram.latency_cycles = 8: the root level's timing is the [dram]"),
    ("link.spad.queue_depth", 0, "link.spad.queue_depth = 0: must be an integer in [1, 1024]"),
    ("link.glb.speed", 0, "link.glb.speed = 0: unknown key (known in [link]: src, dst, engines"),
    ("memory.glb", 0, "memory.glb = 0: expected memory.<level name>.<key>"),
    ("sram.capacity_kib", 8, "sram.capacity_kib = 8: this machine has [[memory]] levels"),
])
def test_level_overrides_are_validated(key, value, message):
    with pytest.raises(ConfigError) as err:
        load_config("three_level").with_overrides({key: value})
    assert str(err.value).startswith(message), str(err.value)


def test_level_keys_on_the_two_level_machine_say_where_its_levels_are():
    with pytest.raises(ConfigError, match="this machine has no \\[\\[memory\\]\\] levels"):
        load_config("default").with_overrides({"memory.sram.capacity_kib": 8})


def test_levels_built_in_python_are_validated_too():
    with pytest.raises(ConfigError, match=r"memory\.x\.banks = 0"):
        MemoryLevel("x", 1, "dram", banks=0)
    with pytest.raises(ConfigError, match=r"memory\.name = 'a b'"):
        MemoryLevel("a b", 1)
    cfg = HardwareConfig(memory=(MemoryLevel("dram", 0), MemoryLevel("buf", 1, "dram", capacity_kib=8)),
                         link=(LinkConfig("dram", "buf", engines=3),),
                         spaces=dataclasses.replace(HardwareConfig().spaces, tag=5))
    assert cfg.sram.capacity_kib == 8 and cfg.links()[0].engines == 3
