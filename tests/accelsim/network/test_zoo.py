"""Every zoo network reads and lowers, with the architectures' layer counts and MACs."""

from __future__ import annotations


def test_zoo_networks_read_and_have_the_architectures_layers() -> None:
    from accelsim.network.zoo import load_network, zoo

    counts = {name: len(load_network(name).layers) for name in zoo()}
    assert counts["resnet18"] == 21           # 20 convolutions (17 + 3 downsampling) and fc
    assert counts["resnet50"] == 54           # 49 + 4 downsampling convolutions and fc
    assert counts["gpt2"] == 12 * 14 + 2
    macs = sum(layer.macs for layer in load_network("resnet50").layers)
    assert 3.8e9 < macs < 4.2e9               # ~4.1 GMACs (He et al. report 3.8 GFLOPs as MACs)
    macs18 = sum(layer.macs for layer in load_network("resnet18").layers)
    assert 1.7e9 < macs18 < 1.9e9             # 1.8 GMACs
