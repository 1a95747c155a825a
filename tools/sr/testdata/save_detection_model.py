"""Saves a scripted torchvision detection model (Faster R-CNN on
mobilenet_v3, small images and few proposals) with its inputs (a list of one
image) into the directory given, and prints the path of torchvision's
operator library (its _C extension: torchvision::nms, roi_align), which the
model needs: what verify_detection_model_test.sh runs `sr verify` on.

    python3 save_detection_model.py OUT_DIR
"""
import importlib.util
import os
import sys
import warnings

import torch
import torchvision

torch.manual_seed(0)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    model = torchvision.models.detection.fasterrcnn_mobilenet_v3_large_320_fpn(
        weights=None, weights_backbone=None, num_classes=3, min_size=64, max_size=96,
        rpn_pre_nms_top_n_test=50, rpn_post_nms_top_n_test=20).eval()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scripted R-CNNs return (losses, detections)
        scripted = torch.jit.script(model)
        inputs = ([torch.rand(3, 64, 80)],)
        with torch.no_grad():
            scripted(*inputs)
    torch.jit.save(scripted, os.path.join(out, "fasterrcnn.pt"))
    torch.save(inputs, os.path.join(out, "fasterrcnn_inputs.pt"))
    print(importlib.util.find_spec("torchvision._C").origin)


if __name__ == "__main__":
    main()
