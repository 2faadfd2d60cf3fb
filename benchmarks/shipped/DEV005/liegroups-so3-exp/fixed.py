# shipped: https://github.com/utiasSTARS/liegroups/pull/7
# SO3 exp built its identity blocks with torch.eye on the CPU and combined them with terms computed from the caller's phi; fixed by moving the identity to the GPU when the input is on CUDA.
import torch

from . import _base, utils


class SO3Matrix(_base.SOMatrixBase):
    dim = 3
    dof = 3

    @classmethod
    def exp(cls, phi):
        if phi.dim() < 2:
            phi = phi.unsqueeze(dim=0)
        if phi.shape[1] != cls.dof:
            raise ValueError("phi must have shape ({},) or (N,{})".format(cls.dof, cls.dof))

        mat = phi.new_empty(phi.shape[0], cls.dim, cls.dim)
        angle = phi.norm(p=2, dim=1)
        cuda = mat.is_cuda

        small = utils.isclose(angle, 0.0)
        small_inds = small.nonzero().squeeze_(dim=1)
        if len(small_inds) > 0:
            if cuda:
                mat[small_inds] = (
                    torch.eye(cls.dim, dtype=phi.dtype).cuda().expand_as(mat[small_inds])
                    + cls.wedge(phi[small_inds])
                )
            else:
                mat[small_inds] = (
                    torch.eye(cls.dim, dtype=phi.dtype).expand_as(mat[small_inds])
                    + cls.wedge(phi[small_inds])
                )

        large = small.logical_not()
        large_inds = large.nonzero().squeeze_(dim=1)
        if len(large_inds) > 0:
            angle = angle[large_inds]
            axis = phi[large_inds] / angle.unsqueeze(dim=1).expand(len(angle), cls.dim)
            s = angle.sin().unsqueeze_(dim=1).unsqueeze_(dim=2).expand_as(mat[large_inds])
            c = angle.cos().unsqueeze_(dim=1).unsqueeze_(dim=2).expand_as(mat[large_inds])
            if cuda:
                A = c * torch.eye(cls.dim, dtype=phi.dtype).cuda().unsqueeze_(dim=0).expand_as(mat[large_inds])
            else:
                A = c * torch.eye(cls.dim, dtype=phi.dtype).unsqueeze_(dim=0).expand_as(mat[large_inds])
            B = (1.0 - c) * utils.outer(axis, axis)
            C = s * cls.wedge(axis)
            mat[large_inds] = A + B + C

        return cls(mat.squeeze_())
