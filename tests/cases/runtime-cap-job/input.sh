# SPDX-License-Identifier: Apache-2.0
. ../lib.sh
template job train registry.example.com/train:1 | pod_from_template Job train ml | set_limits 0 "{\"nvidia.com/gpu\":\"8\"}" | review
